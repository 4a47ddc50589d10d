import { setTimeout as delay } from "node:timers/promises";
import type {
  AgentContext,
  CreateTerminalRequest,
  TerminalExitStatus,
  TerminalOutputResponse,
} from "@agentclientprotocol/sdk";

/** Longest any single terminal request may take before the check fails. */
export const REQUEST_TIMEOUT_MS = 5_000;

/** A check's verdict was decided: thrown from anywhere inside a check. */
export class CheckFailure extends Error {
  override readonly name = "CheckFailure";
}

export class CheckSkip extends Error {
  override readonly name = "CheckSkip";
}

/** Fails the check with `detail` unless `condition` holds. */
export function expect(condition: unknown, detail: string): asserts condition {
  if (!condition) {
    throw new CheckFailure(detail);
  }
}

/** A JSON-RPC error as the client sent it. */
export interface RpcError {
  code?: number | undefined;
  message: string;
}

export function rpcErrorOf(error: unknown): RpcError {
  if (typeof error === "object" && error !== null && "message" in error) {
    const code = "code" in error && typeof error.code === "number" ? error.code : undefined;
    return { code, message: String(error.message) };
  }
  return { message: String(error) };
}

/** The client answered a request with an error. */
export class RpcFailure extends CheckFailure {
  constructor(
    readonly method: string,
    readonly rpc: RpcError,
  ) {
    super(`${method} failed: ${rpc.message}${rpc.code === undefined ? "" : ` (code ${rpc.code})`}`);
  }
}

/** `work`, or a CheckFailure saying `timeoutMessage` once `timeoutMs` have passed first. */
export async function withDeadline<T>(
  work: Promise<T>,
  timeoutMs: number,
  timeoutMessage: string,
): Promise<T> {
  const ac = new AbortController();
  try {
    return await Promise.race([
      work,
      delay(timeoutMs, undefined, { signal: ac.signal }).then(() => {
        throw new CheckFailure(timeoutMessage);
      }),
    ]);
  } finally {
    ac.abort();
  }
}

function bounded<T>(what: string, promise: Promise<T>, timeoutMs = REQUEST_TIMEOUT_MS): Promise<T> {
  const answered = promise.catch((error: unknown) => {
    throw new RpcFailure(what, rpcErrorOf(error));
  });
  return withDeadline(answered, timeoutMs, `${what} did not answer within ${timeoutMs} ms`);
}

/**
 * The client's terminal methods for one check: every request bounded in time, every terminal
 * the check created released afterwards (a failed check must not leave commands running).
 */
export class TerminalProbe {
  private readonly created = new Set<string>();
  /** Set by cleanup: a check past its deadline may still be running and must not start more. */
  private closed = false;

  constructor(
    private readonly client: AgentContext,
    readonly sessionId: string,
  ) {}

  async create(
    params: Omit<CreateTerminalRequest, "sessionId">,
    timeoutMs?: number,
  ): Promise<string> {
    if (this.closed) {
      throw new CheckFailure("the check already ended");
    }
    const { terminalId } = await bounded(
      "terminal/create",
      this.client.request("terminal/create", { sessionId: this.sessionId, ...params }),
      timeoutMs,
    );
    expect(
      typeof terminalId === "string" && terminalId !== "",
      `terminal/create returned no terminalId: ${JSON.stringify(terminalId)}`,
    );
    if (this.closed) {
      // Answered after cleanup: nothing else will release it.
      await this.release(terminalId);
      throw new CheckFailure("the check already ended");
    }
    this.created.add(terminalId);
    return terminalId;
  }

  output(terminalId: string, meta?: Record<string, unknown>): Promise<TerminalOutputResponse> {
    return bounded(
      "terminal/output",
      this.client.request("terminal/output", {
        sessionId: this.sessionId,
        terminalId,
        ...(meta ? { _meta: meta } : {}),
      }),
    );
  }

  waitForExit(terminalId: string, timeoutMs?: number): Promise<TerminalExitStatus> {
    return bounded(
      "terminal/wait_for_exit",
      this.client.request("terminal/wait_for_exit", { sessionId: this.sessionId, terminalId }),
      timeoutMs,
    );
  }

  async kill(terminalId: string, meta?: Record<string, unknown>): Promise<void> {
    await bounded(
      "terminal/kill",
      this.client.request("terminal/kill", {
        sessionId: this.sessionId,
        terminalId,
        ...(meta ? { _meta: meta } : {}),
      }),
    );
  }

  async release(terminalId: string): Promise<void> {
    await bounded(
      "terminal/release",
      this.client.request("terminal/release", { sessionId: this.sessionId, terminalId }),
    );
    this.created.delete(terminalId);
  }

  /** An extension method, bounded like the rest. */
  async ext(method: string, params: Record<string, unknown>): Promise<unknown> {
    return bounded(method, this.client.request(method, { sessionId: this.sessionId, ...params }));
  }

  /** Polls `terminal/output` until `predicate` holds; fails after `timeoutMs`. */
  async outputUntil(
    terminalId: string,
    predicate: (o: TerminalOutputResponse) => boolean,
    what: string,
    timeoutMs = 5_000,
  ): Promise<TerminalOutputResponse> {
    const deadline = Date.now() + timeoutMs;
    for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
      const output = await this.output(terminalId);
      if (predicate(output)) {
        return output;
      }
      if (Date.now() > deadline) {
        throw new CheckFailure(
          `${what} within ${timeoutMs} ms; output so far: ${JSON.stringify(output.output.slice(-200))}`,
        );
      }
      // Polling the client is the only way to observe a v1 terminal: back off between reads.
      await delay(pause);
    }
  }

  /** Releases whatever the check left; errors here are the client's problem, not the check's. */
  async cleanup(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.created].map((id) => this.release(id)));
    this.created.clear();
  }
}
