import type { TerminalLimits } from "../command/terminal-limits.js";
import type { Renderer, TerminalRecord } from "../view/renderer.js";
import { AgentTerminals, MAX_ID_CHARS } from "./agent-terminals.js";

/** Bytes of the buffer output text is encoded into (a 64 KiB chunk; a larger one gets its own). */
const SCRATCH_BYTES = 96 * 1024;
/** Tool calls remembered with the terminals they report (for the command given later): the oldest are forgotten beyond this. */
const MAX_REMEMBERED_CALLS = 1024;

/**
 * What a client declares in `clientCapabilities._meta` to be sent this dialect: both keys, so an
 * agent that reads either turns it on (claude-agent-acp and codex-acp then send
 * `terminal_output_delta`, which both mean as append).
 */
export const META_TERMINAL_CAPABILITIES = {
  terminal_output: true,
  terminal_output_delta: true,
} as const;

/** A field of an object read from the wire, unknown until checked. */
function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null ? Reflect.get(value, name) : undefined;
}

/** The command of a tool call's `rawInput` (a line, or argv words joined), if it gives one. */
function commandOf(rawInput: unknown): string | undefined {
  const command = field(rawInput, "command");
  if (typeof command === "string") {
    return command;
  }
  if (Array.isArray(command) && command.every((word) => typeof word === "string")) {
    return command.join(" ");
  }
  return undefined;
}

/** A tool call or its update as this dialect reads it (the SDK parsed the v1 shape). */
export interface MetaToolCall {
  toolCallId: string;
  rawInput?: unknown;
  _meta?: unknown;
}

/**
 * ACP v1 tool calls whose `_meta` reports a command the agent runs itself (the dialect of
 * claude-agent-acp and codex-acp, see test/fixtures/adapters/DIALECTS.md), as agent terminals:
 * `terminal_info {terminal_id, cwd}` starts one, `terminal_output_delta {terminal_id, data}`
 * appends text, `terminal_output` replaces it (claude-agent-acp) or appends (codex-acp and Zed's
 * convention: `replaceOnOutput` says which), `terminal_exit {terminal_id, exit_code, signal}` ends
 * it. The command is the tool call's `rawInput.command`, which may come in a later update. A
 * terminal that never gets an exit stays running: shown so at the end, never as finished.
 */
export class MetaTerminals {
  readonly #terminals: AgentTerminals;
  /** Terminal ids per tool call, for a command reported after the terminal. */
  readonly #byCall = new Map<string, string[]>();
  readonly #scratch = Buffer.allocUnsafe(SCRATCH_BYTES);

  constructor(
    view: Renderer,
    limits: TerminalLimits,
    /** `terminal_output` replaces the text (set once the agent is known: `replacesOnTerminalOutput`). */
    public replaceOnOutput: boolean,
  ) {
    this.#terminals = new AgentTerminals(view, limits, "v1");
  }

  runningIds(): string[] {
    return this.#terminals.runningIds();
  }

  terminalRecords(): TerminalRecord[] {
    return this.#terminals.terminalRecords();
  }

  /** Reads what a tool call (or update) reports of its terminals; call before showing it. */
  read(call: MetaToolCall): void {
    const meta = call._meta;
    const info = field(meta, "terminal_info");
    const command = commandOf(call.rawInput);
    if (info !== undefined) {
      const terminalId = field(info, "terminal_id");
      const cwd = field(info, "cwd");
      if (typeof terminalId === "string" && terminalId.length <= MAX_ID_CHARS) {
        this.#remember(call.toolCallId, terminalId);
        this.#terminals.report(terminalId, {
          ...(typeof cwd === "string" ? { cwd } : {}),
          ...(command === undefined ? {} : { command }),
        });
      }
    } else if (command !== undefined) {
      for (const terminalId of this.#byCall.get(call.toolCallId) ?? []) {
        this.#terminals.report(terminalId, { command });
      }
    }
    this.#output(field(meta, "terminal_output_delta"), false);
    this.#output(field(meta, "terminal_output"), this.replaceOnOutput);
    const exit = field(meta, "terminal_exit");
    if (exit !== undefined) {
      this.#terminals.report(field(exit, "terminal_id"), {
        exitStatus: { exitCode: field(exit, "exit_code"), signal: field(exit, "signal") },
      });
    }
  }

  /** A report's text, already bytes (the driver's fast lane): appended, or replacing per `key`. */
  output(
    key: "terminal_output_delta" | "terminal_output",
    terminalId: string,
    bytes: Uint8Array,
  ): void {
    if (key === "terminal_output" && this.replaceOnOutput) {
      this.#terminals.report(terminalId, { output: bytes });
    } else {
      this.#terminals.append(terminalId, bytes);
    }
  }

  #output(report: unknown, replace: boolean): void {
    const data = field(report, "data");
    if (typeof data !== "string") {
      return;
    }
    const terminalId = field(report, "terminal_id");
    // Encoded where the last chunk was (the terminal copies what it keeps): a new buffer a chunk
    // is native memory that waits for V8's external-memory pressure to be freed.
    const length = Buffer.byteLength(data, "utf8");
    const bytes =
      length <= this.#scratch.byteLength
        ? this.#scratch.subarray(0, this.#scratch.write(data, "utf8"))
        : Buffer.from(data, "utf8");
    if (replace) {
      this.#terminals.report(terminalId, { output: bytes });
    } else {
      this.#terminals.append(terminalId, bytes);
    }
  }

  #remember(toolCallId: string, terminalId: string): void {
    if (toolCallId.length > MAX_ID_CHARS) {
      return;
    }
    const ids = this.#byCall.get(toolCallId) ?? [];
    if (!ids.includes(terminalId) && ids.length < 16) {
      ids.push(terminalId);
    }
    this.#byCall.delete(toolCallId);
    this.#byCall.set(toolCallId, ids);
    if (this.#byCall.size > MAX_REMEMBERED_CALLS) {
      const oldest = this.#byCall.keys().next();
      if (oldest.done !== true) {
        this.#byCall.delete(oldest.value);
      }
    }
  }
}

/**
 * Whether an agent means `terminal_output` as a replacement of the terminal's text: claude-agent-acp
 * (and claude-code-acp before it) does; codex-acp, and Zed's convention which it follows, append.
 */
export function replacesOnTerminalOutput(agentName: unknown): boolean {
  return typeof agentName === "string" && /claude-(agent|code)-acp/.test(agentName);
}
