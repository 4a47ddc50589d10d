import { TerminalError } from "../core/errors.js";
import { sameOwner, TerminalSlots } from "./slots.js";
import type { Terminal } from "./terminal.js";
import type { AuthorizeCommand, TerminalOwner } from "./types.js";
import { validateOwner, validateTerminalId } from "./validate.js";

/**
 * A host's live terminals (created, not released) by id, each with the slot its create took
 * (counted against `maxTerminalsPerSession` and `maxTerminals`) and the command the authorize hook
 * is shown for its writes and signals. Looked up for an owner, another owner's terminal is "not
 * found".
 */
export class TerminalRegistry {
  readonly #terminals = new Map<string, Terminal>();
  readonly #slots: TerminalSlots;
  /** How to give back each live terminal's slot. */
  readonly #freeSlot = new Map<string, () => void>();
  /** What each live terminal runs, as the authorize hook is shown it for writes and signals. */
  readonly #commands = new Map<string, AuthorizeCommand>();

  constructor(maxTerminalsPerSession: number, maxTerminals: number) {
    this.#slots = new TerminalSlots(maxTerminalsPerSession, maxTerminals);
  }

  /** Takes a slot for a create or throws "limit_reached"; returns a function that gives it back once. */
  reserve(owner: TerminalOwner): () => void {
    return this.#slots.reserve(owner);
  }

  /** Registers a created terminal with the slot its create took and the command it runs. */
  add(terminal: Terminal, freeSlot: () => void, command: AuthorizeCommand): void {
    this.#terminals.set(terminal.id, terminal);
    this.#freeSlot.set(terminal.id, freeSlot);
    this.#commands.set(terminal.id, command);
  }

  /** Forgets a terminal and gives back its slot, unless another is registered under its id. */
  remove(terminal: Terminal): void {
    if (this.#terminals.get(terminal.id) === terminal) {
      this.#terminals.delete(terminal.id);
      this.#freeSlot.get(terminal.id)?.();
      this.#freeSlot.delete(terminal.id);
      this.#commands.delete(terminal.id);
    }
  }

  /** The owner's terminal; throws "not found" for an unknown id or another owner's terminal. */
  get(owner: TerminalOwner, terminalId: string): Terminal {
    const terminal = this.find(owner, terminalId);
    if (!terminal) {
      throw TerminalError.notFound(terminalId);
    }
    return terminal;
  }

  /** The owner's terminal, or undefined; throws only on an invalid owner or id. */
  find(owner: TerminalOwner, terminalId: string): Terminal | undefined {
    const validOwner = validateOwner(owner);
    const terminal = this.#terminals.get(validateTerminalId(terminalId));
    return terminal && sameOwner(terminal.owner, validOwner) ? terminal : undefined;
  }

  /** A terminal by id alone, for a UI: no owner check. */
  byId(terminalId: string): Terminal | undefined {
    return this.#terminals.get(terminalId);
  }

  /** The command a live terminal runs, as the authorize hook was shown it at its create. */
  commandOf(terminalId: string): AuthorizeCommand | undefined {
    return this.#commands.get(terminalId);
  }

  /** The terminals of a connection, of a session in it, or (an empty filter) all of them. */
  select(filter: { connectionId?: string; sessionId?: string }): Terminal[] {
    return [...this.#terminals.values()].filter(
      (terminal) =>
        (filter.connectionId === undefined ||
          terminal.owner.connectionId === filter.connectionId) &&
        (filter.sessionId === undefined || terminal.owner.sessionId === filter.sessionId),
    );
  }
}
