import { terminalClientCapabilities } from "acp-terminal";
import { META_TERMINAL_CAPABILITIES } from "../readers/v1-meta-terminals.js";
import type { EditorDialect } from "./tool-call-terminals.js";
import type { TerminalsMode } from "./proxy-options.js";
import { field, isRecord } from "./json-rpc.js";

/** What an editor's `initialize` says about terminals. */
export interface EditorOffer {
  /** It speaks ACP v1 (the only version with client terminals, and the one the proxy renders for). */
  v1: boolean;
  /** It runs terminals itself (`clientCapabilities.terminal`). */
  terminal: boolean;
  /** How it shows a terminal it does not run: the `_meta` dialect it declared, else as text. */
  dialect: EditorDialect;
}

/** The editor's offer, read from its `initialize` params. */
export function editorOffer(params: unknown): EditorOffer {
  const capabilities = field(params, "clientCapabilities");
  const meta = field(capabilities, "_meta");
  return {
    v1: field(params, "protocolVersion") === 1,
    terminal: field(capabilities, "terminal") === true,
    dialect:
      field(meta, "terminal_output_delta") === true
        ? "terminal_output_delta"
        : field(meta, "terminal_output") === true
          ? "terminal_output"
          : "text",
  };
}

/** Whether the proxy serves the agent's terminals, by `--terminals` and the editor's offer. */
export function servesTerminals(mode: TerminalsMode, offer: EditorOffer): boolean {
  return offer.v1 && (mode === "serve" || (mode === "auto" && !offer.terminal));
}

/**
 * The `initialize` params the agent sees: the editor's, plus what the proxy serves: client
 * terminals with the acp-terminal extension (when it serves them; `host` says its containment and
 * sandbox), and the `_meta` terminal output the proxy turns into text (when the editor declared
 * none: an editor that declared one gets that dialect as the agent sends it). Undefined when
 * nothing is added: the editor's line then goes on unchanged.
 */
export function agentInitializeParams(
  params: Record<string, unknown>,
  offer: EditorOffer,
  serve: boolean,
  host: object | undefined,
): Record<string, unknown> | undefined {
  if (!offer.v1 || (!serve && offer.dialect !== "text")) {
    return undefined;
  }
  const given = params["clientCapabilities"];
  const capabilities = isRecord(given) ? given : {};
  const meta = isRecord(capabilities["_meta"]) ? capabilities["_meta"] : {};
  const terminals = serve ? terminalClientCapabilities(host) : undefined;
  return {
    ...params,
    clientCapabilities: {
      ...capabilities,
      ...(terminals === undefined ? {} : { terminal: true }),
      _meta: {
        ...meta,
        ...(terminals?._meta ?? {}),
        ...(offer.dialect === "text" ? META_TERMINAL_CAPABILITIES : {}),
      },
    },
  };
}
