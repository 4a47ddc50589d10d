import {
  ACP_TERMINAL_EXTENSION_VERSION,
  ACP_TERMINAL_META_KEY,
  EXTENSION_METHODS,
  type AcpTerminalCapability,
} from "../protocol/extension.js";

export interface TerminalClientCapabilities {
  terminal: true;
  _meta: { [ACP_TERMINAL_META_KEY]: AcpTerminalCapability };
}

/**
 * The `clientCapabilities` to send in `initialize` when a TerminalHost is bound. Spread it into
 * your own capabilities: `{ fs: {...}, ...terminalClientCapabilities() }` (merge `_meta` yourself
 * if you advertise other `_meta` keys).
 */
export function terminalClientCapabilities(host?: object): TerminalClientCapabilities {
  // A host that knows PTYs cannot be opened here (node-pty failed to load) says `ptyAvailable: false`.
  const ptyAvailable = !(host && "ptyAvailable" in host && host.ptyAvailable === false);
  // Without a host that says otherwise, only the floor is promised.
  const said = host && "containment" in host ? host.containment : undefined;
  const containment = said === "pid-namespace" || said === "process-tree" ? said : "process-group";
  const sandbox = sandboxOf(host);
  return {
    terminal: true,
    _meta: {
      [ACP_TERMINAL_META_KEY]: {
        version: ACP_TERMINAL_EXTENSION_VERSION,
        methods: Object.values(EXTENSION_METHODS),
        cursors: true,
        outputSince: true,
        pty: ptyAvailable,
        stdin: true,
        containment,
        sandbox,
        executor: executorOf(host),
      },
    },
  };
}

/** Where a host's commands run, as it says; without a host that says, this machine. */
function executorOf(host: object | undefined): NonNullable<AcpTerminalCapability["executor"]> {
  const place: unknown = host && "executor" in host ? host.executor : undefined;
  if (typeof place === "object" && place !== null && "kind" in place && "target" in place) {
    const { kind, target } = place;
    const os = "os" in place ? place.os : undefined;
    const shell = "shell" in place ? place.shell : undefined;
    if (typeof kind === "string" && typeof target === "string") {
      return {
        kind,
        target,
        ...(typeof os === "string" ? { os } : {}),
        ...(typeof shell === "string" ? { shell } : {}),
      };
    }
  }
  return { kind: "local", target: "local" };
}

/** A host's sandbox as the capability states it; without a host that says, none is promised. */
function sandboxOf(host: object | undefined): AcpTerminalCapability["sandbox"] {
  const status: unknown = host && "sandbox" in host ? host.sandbox : undefined;
  if (typeof status === "object" && status !== null && "mode" in status && "network" in status) {
    const { mode, network } = status;
    if (
      (mode === "read-only" ||
        mode === "workspace-write" ||
        mode === "off" ||
        mode === "unavailable") &&
      typeof network === "boolean"
    ) {
      return { mode, network };
    }
  }
  return { mode: "off", network: true };
}
