import { EventEmitter } from "node:events";
import type {
  AgentContext,
  BackgroundWork,
  SessionUpdate,
  ToolCallUpdate,
} from "@agentclientprotocol/sdk/experimental/v2";
import { RequestError } from "@agentclientprotocol/sdk/experimental/v2";
import { cutText } from "acp-terminal/internal";
import type { TerminalUpdate } from "acp-terminal/protocol";
import { CheckFailure, rpcErrorOf, withDeadline } from "../../base/probe.js";
import { TerminalLedger, type CancelStanding } from "./terminals.js";

/** Characters of a client's terminal id kept in a cancel record and in the -32602 answering it. */
const MAX_ID_CHARS = 200;

/** Longest the client may take to answer the battery's round-trip request. */
export const ROUND_TRIP_TIMEOUT_MS = 5_000;

/**
 * An extension request no client implements: a conforming JSON-RPC peer answers it (with
 * -32601, Method not found), which proves it is still reading and answering after a step.
 */
export const PING_METHOD = "_acp-terminal/conformance-ping";

/** Base64 of `text` as UTF-8 bytes. */
export function b64(text: string | Uint8Array): string {
  return Buffer.from(typeof text === "string" ? Buffer.from(text, "utf8") : text).toString(
    "base64",
  );
}

/** How the agent answers a `terminal/cancel` for a terminal that advertises cancel. */
export type CancelAnswer = "accept" | "refuse-exited";

/**
 * One prompt turn's view of a v2 session: everything the battery publishes goes through here, so
 * each notification is numbered (to tell which ones a round trip proved the client has read), and
 * the terminals' cancel capability is tracked in the ledger.
 */
export class V2Session {
  readonly ledger: TerminalLedger;
  /** Emits `cancel` with the terminal id whenever a `terminal/cancel` arrives. */
  readonly events = new EventEmitter();
  private seq = 0;
  private background: BackgroundWork[] = [];
  private readonly cancelAnswers = new Map<string, CancelAnswer>();
  private pingsWaiting = 0;
  private pingWaitSince = 0;
  private pingWaitedMs = 0;

  constructor(
    private readonly client: AgentContext,
    readonly sessionId: string,
    /** Aborted when the connection closes. */
    readonly connectionSignal: AbortSignal,
    /** The agent text of this turn goes into this message. */
    private readonly messageId: string,
    readonly cwd: string,
    startedAt = Date.now(),
  ) {
    this.ledger = new TerminalLedger(startedAt);
  }

  /** Sends one session update; resolves with its sequence number. */
  async update(update: SessionUpdate): Promise<number> {
    const seq = ++this.seq;
    // Any terminal the agent named exists for the client: a cancel for it is judged, not "unknown".
    const named = "terminalId" in update ? update.terminalId : undefined;
    if (update.sessionUpdate.startsWith("terminal_") && typeof named === "string") {
      this.ledger.announce(named);
    }
    try {
      await this.client.notify("session/update", { sessionId: this.sessionId, update });
    } catch (error) {
      if (this.connectionSignal.aborted) {
        throw closedAfter(`the ${update.sessionUpdate} sent before it`);
      }
      throw error;
    }
    return seq;
  }

  /** Any payload, unchecked: for `_`-prefixed variants and unknown fields the SDK types refuse. */
  async rawUpdate(update: Record<string, unknown>): Promise<number> {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- deliberately unchecked: the checks send what the SDK's types refuse
    return this.update(update as unknown as SessionUpdate);
  }

  /** A `terminal_update`; `capabilities.cancel` present advertises cancel, `null` or absent cancel withdraws it. */
  async terminal(
    update: Omit<TerminalUpdate, "sessionUpdate">,
    answer: CancelAnswer = "accept",
  ): Promise<number> {
    this.ledger.announce(update.terminalId);
    const advertises =
      update.capabilities !== undefined &&
      update.capabilities !== null &&
      update.capabilities.cancel !== undefined &&
      update.capabilities.cancel !== null;
    if (advertises) {
      this.ledger.advertise(update.terminalId);
      this.cancelAnswers.set(update.terminalId, answer);
    }
    const seq = await this.update({ sessionUpdate: "terminal_update", ...update });
    if (update.capabilities !== undefined && !advertises) {
      this.ledger.withdraw(update.terminalId, seq);
    }
    return seq;
  }

  chunk(terminalId: string, text: string | Uint8Array): Promise<number> {
    return this.update({ sessionUpdate: "terminal_output_chunk", terminalId, data: b64(text) });
  }

  toolCall(update: ToolCallUpdate): Promise<number> {
    return this.update({ sessionUpdate: "tool_call_update", ...update });
  }

  say(text: string): Promise<number> {
    return this.update({
      sessionUpdate: "agent_message_chunk",
      messageId: this.messageId,
      content: { type: "text", text },
    });
  }

  /** A `state_update`, always with the full background list (the spec wants it on every one once reported). */
  state(state: "running" | "idle", stopReason?: "end_turn" | "cancelled"): Promise<number> {
    const background = [...this.background];
    if (state === "running") {
      return this.update({ sessionUpdate: "state_update", state, background });
    }
    return this.update(
      stopReason === "cancelled"
        ? { sessionUpdate: "state_update", state, background, stopReason }
        : { sessionUpdate: "state_update", state, background, stopReason: "end_turn" },
    );
  }

  setBackground(items: BackgroundWork[]): void {
    this.background = items;
  }

  /**
   * Sends the ping request and waits for any answer. Fails, naming `after`, when the connection
   * closed or no answer came within ROUND_TRIP_TIMEOUT_MS. Resolves with the round trip's time.
   */
  async ping(after: string): Promise<number> {
    const seq = this.seq;
    const started = Date.now();
    if (this.connectionSignal.aborted) {
      throw closedAfter(after);
    }
    if (this.pingsWaiting++ === 0) {
      this.pingWaitSince = started;
    }
    try {
      return await this.roundTrip(after, seq, started);
    } finally {
      if (--this.pingsWaiting === 0) {
        this.pingWaitedMs += Date.now() - this.pingWaitSince;
      }
    }
  }

  /**
   * Milliseconds spent waiting for the client's answers to pings so far (the one waiting
   * included): a check's deadline does not count them, each is bounded on its own.
   */
  get pingWaitMs(): number {
    return this.pingWaitedMs + (this.pingsWaiting > 0 ? Date.now() - this.pingWaitSince : 0);
  }

  private async roundTrip(after: string, seq: number, started: number): Promise<number> {
    const answered = this.client.request(PING_METHOD, { sessionId: this.sessionId }).then(
      () => undefined,
      (error: unknown) => {
        if (this.connectionSignal.aborted) {
          throw closedAfter(after);
        }
        // An error response is an answer; only a closed connection is not.
        return rpcErrorOf(error);
      },
    );
    await withDeadline(
      answered,
      ROUND_TRIP_TIMEOUT_MS,
      `the client did not answer a request within ${ROUND_TRIP_TIMEOUT_MS} ms after ${after}: it must keep reading and answering messages (any answer, even -32601 Method not found, counts)`,
    );
    this.ledger.roundTrip(seq);
    return Date.now() - started;
  }

  /** Judges one `terminal/cancel`; resolves when accepted, throws the -32602 to send otherwise. */
  async onCancel(terminalId: string): Promise<void> {
    const standing = this.ledger.standing(terminalId);
    // An invented id may be megabytes: it is recorded and answered cut (the battery's are short).
    const shown = cutText(terminalId, MAX_ID_CHARS);
    const refuse = (message: string, record: CancelStanding = standing): never => {
      this.ledger.record(shown, record, `-32602 ${message}`);
      this.events.emit("cancel", shown);
      throw invalidParams(message, shown);
    };
    if (standing === "unknown") {
      refuse("unknown terminal");
    }
    if (standing === "never-advertised") {
      refuse("this terminal is not cancellable");
    }
    if (standing !== "advertised") {
      refuse("this terminal has already exited");
    }
    if (this.cancelAnswers.get(terminalId) === "refuse-exited") {
      // The command "exits" as the cancel arrives: the race the spec answers with -32602.
      await this.terminal({
        terminalId,
        exitStatus: { exitCode: 0 },
        capabilities: null,
      });
      refuse("this terminal has already exited", "advertised");
    }
    this.ledger.record(terminalId, standing, "accepted");
    this.events.emit("cancel", terminalId);
    // Answer first, then confirm with exitStatus, as the spec orders it.
    setImmediate(() => {
      void this.chunk(terminalId, "\r\n^C cancelled by terminal/cancel\r\n")
        .then(() =>
          this.terminal({ terminalId, exitStatus: { signal: "SIGTERM" }, capabilities: null }),
        )
        .catch(() => undefined);
    });
  }
}

function closedAfter(after: string): CheckFailure {
  return new CheckFailure(
    `the client closed the connection after ${after}: it must keep the connection open and ignore or generically display what it does not understand`,
  );
}

function invalidParams(message: string, terminalId: string): RequestError {
  return RequestError.invalidParams({ terminalId }, message);
}
