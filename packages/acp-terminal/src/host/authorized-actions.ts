import { parseSignalName } from "../terminate/signals.js";
import { authorizeAction, type AuthorizeHook } from "./authorize.js";
import type { Terminal } from "./terminal.js";
import { signalTerminal, writeInput } from "./terminal-io.js";
import type { TerminalRegistry } from "./terminal-registry.js";
import type { AuthorizeRequest, ExitStatus, WriteOptions } from "./types.js";

/**
 * What an owner does to a live terminal that can make its command do something: writes to its
 * stdin, signals, kills whose first signal is neither SIGTERM nor SIGKILL. With an authorize hook
 * each is shown to it first, beside the command the terminal's create was shown, and done once the
 * hook allows it. `terminalId` is the id as the caller gave it (the hook is shown that).
 */
export class AuthorizedActions {
  readonly #hook: AuthorizeHook | undefined;
  readonly #terminals: TerminalRegistry;

  constructor(hook: AuthorizeHook | undefined, terminals: TerminalRegistry) {
    this.#hook = hook;
    this.#terminals = terminals;
  }

  /** SIGTERM (or `signal`) then SIGKILL after the grace; see `TerminalHost.kill`. */
  async kill(terminal: Terminal, terminalId: string, signal?: string): Promise<ExitStatus> {
    const name = parseSignalName(signal ?? "SIGTERM");
    // SIGTERM and SIGKILL only stop the command; another first signal may make it do something.
    if (name !== "SIGTERM" && name !== "SIGKILL") {
      await this.#authorize(terminal.id, { action: "signal", terminalId, signal: name });
    }
    return terminal.kill(name);
  }

  async write(
    terminal: Terminal,
    terminalId: string,
    data: string | Uint8Array,
    options?: WriteOptions,
  ): Promise<void> {
    // Bad data is refused by writeInput, without asking anyone about it.
    const bytes =
      typeof data === "string"
        ? Buffer.from(data, "utf8")
        : data instanceof Uint8Array
          ? data
          : undefined;
    if (bytes) {
      await this.#authorize(terminal.id, {
        action: "write",
        terminalId,
        data: bytes,
        eof: options?.eof === true,
      });
    }
    return writeInput(terminal, data, options);
  }

  /** A bad signal name throws at once; without a hook, so does a signal to an exited command. */
  signal(terminal: Terminal, terminalId: string, signal: string): Promise<void> {
    const name = parseSignalName(signal);
    if (!this.#hook) {
      signalTerminal(terminal, name);
      return Promise.resolve();
    }
    return (async () => {
      await this.#authorize(terminal.id, { action: "signal", terminalId, signal: name });
      signalTerminal(terminal, name);
    })();
  }

  async #authorize(
    terminalId: string,
    action:
      | { action: "write"; terminalId: string; data: Uint8Array; eof: boolean }
      | { action: "signal"; terminalId: string; signal: string },
  ): Promise<void> {
    const command = this.#terminals.commandOf(terminalId);
    if (!this.#hook || !command) {
      return;
    }
    await authorizeAction(this.#hook, { ...command, ...action } as AuthorizeRequest);
  }
}
