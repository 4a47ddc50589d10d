import { AsyncLocalStorage } from "node:async_hooks";
import type { ApprovalAnswer } from "acp-terminal/approval";

/** The label that ties a run to the MCP call that started it. */
export const CALL_LABEL = "mcpCall";

/** Why a command of a call was not run: what the refusal says and what to do about it. */
export type RefusalReason =
  /** The server's flags do not allow it and no one can be asked (the client takes no elicitation; writes and signals are never asked). */
  | { kind: "policy"; start: boolean; why: string }
  /** Asked through elicitation and refused by the host's answer (quoted in `answer`). */
  | HostRefusal
  /** Too long to show whole in a question, so not asked. */
  | { kind: "too_long"; chars: number }
  /** Its start came after the call had answered (it waited for a slot): no one to ask any more. */
  | { kind: "call_ended" };

/**
 * A host's answer to an approval question that runs nothing: `decline` (the user said no),
 * `cancel` (no decision: closed, or never shown) or an `accept` without a decision this server
 * knows. `answer` is the host's answer as JSON (cut), `afterMs` how long after the question it came.
 */
export interface HostRefusal {
  kind: "declined" | "cancelled" | "unclear";
  answer: string;
  afterMs?: number;
}

/** What a retried call's client answered to a question of this server. */
export type HostAnswer = ApprovalAnswer | HostRefusal;

/** A question to ask through elicitation, keyed by the command it is about. */
export interface ApprovalQuestion {
  key: string;
  message: string;
  /** The command in one line, for a refusal message. */
  command: string;
  /** The answers that allow, as the form offers them: the form's value and its words. */
  allows: readonly { const: string; title: string }[];
}

/**
 * One `tools/call` while it runs: whether its client can be asked (elicitation), the answers its
 * client already gave (a retried call's input responses), the questions to ask next, and why
 * commands were refused. The approval hook finds it through `createScope`.
 */
export class McpCall {
  readonly questions = new Map<string, ApprovalQuestion>();
  readonly refusals: { command: string; reason: RefusalReason }[] = [];
  /** False once the call has answered: a later start has no one to ask. */
  open = true;

  constructor(
    readonly id: string,
    /** The client takes elicitation requests on this call. */
    readonly canAsk: boolean,
    /** Answers by question key, from the client's input responses. */
    readonly answers: ReadonlyMap<string, HostAnswer>,
  ) {}

  refuse(command: string, reason: RefusalReason): void {
    // Bounded: a call starts one command, but a hostile tool input could loop on refusals.
    if (this.refusals.length < 16) {
      this.refusals.push({ command, reason });
    }
  }
}

/** The calls running now, by id (shared by every server instance of one runtime). */
export class CallDirectory {
  private readonly calls = new Map<string, McpCall>();
  private counter = 0;

  open(canAsk: boolean, answers: McpCall["answers"]): McpCall {
    const call = new McpCall(`${++this.counter}`, canAsk, answers);
    this.calls.set(call.id, call);
    return call;
  }

  get(id: string | undefined): McpCall | undefined {
    return id === undefined ? undefined : this.calls.get(id);
  }

  close(call: McpCall): void {
    call.open = false;
    this.calls.delete(call.id);
  }
}

/**
 * What the approval hook needs to know about the terminal being created, set by the provider
 * around the host's `create` (so it is exact: the hook runs within that create): the call that
 * started it, and the directory the command starts in when the host is given an fd path.
 */
export interface CreateScope {
  call: McpCall | undefined;
  /** `spawn`: the `/proc/<pid>/fd/N` path the host starts the command in; `shown`: that directory's path. */
  cwd?: { spawn: string; shown: string };
}

export const createScope = new AsyncLocalStorage<CreateScope>();
