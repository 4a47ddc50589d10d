import { setImmediate as nextTurn, setTimeout as delay } from "node:timers/promises";
import type { Stream } from "@agentclientprotocol/sdk";
import type { AgentExit } from "../agent/agent-process.js";
import { agentExited, initTimedOut, notAcp, type Ending } from "../agent/failure-messages.js";
import type { RunOptions } from "../command/args.js";
import { ExitCode } from "../exit-codes.js";
import type { Renderer } from "../view/renderer.js";
import { clientSide, type ConversationIo } from "./client-side.js";
import type { ProtocolDriver } from "./driver.js";
import { failureEnding, PHASES, stoppedEnding, turnEnding, type Phase } from "./endings.js";

/** After the agent's process exits, how long its last messages get to arrive. */
export const EXIT_DRAIN_MS = 500;

/** The agent behind the stream, when it is a process of ours. */
export interface AgentHandle {
  /** Resolves when it exits; the conversation then ends, saying when. */
  readonly exited: Promise<AgentExit>;
  /** Resolves with its first line on stdout when that is not JSON. */
  readonly notJson: Promise<string>;
  readonly lastStderrLine: string | undefined;
  /** Stops it and everything it started (`graceMs` before SIGKILL). */
  kill(graceMs?: number): Promise<void>;
}

export interface ConversationInit {
  options: RunOptions;
  io: ConversationIo;
  view: Renderer;
  driver: ProtocolDriver;
  /** The agent's messages (the SDK's ndjson stream over its stdio, or an in-memory pair). */
  stream: Stream;
  /** Aborting ends the conversation at once; the reason (a `Stopped`, or anything) says why. */
  signal: AbortSignal;
  agent?: AgentHandle;
  /** The v2 offer already waited `--init-timeout` for an answer in vain. */
  offerTimedOut?: boolean;
  /** When the agent was started (the run's elapsed time counts from it). */
  startedAt?: number;
}

/**
 * One conversation with an agent, whatever version its driver speaks: the phases (initialize,
 * session, turn) and how each can end (the agent's errors and exit, `--timeout`,
 * `--init-timeout`, Ctrl-C, the signal), the questions asked of the user (command approval and
 * permission requests, one at a time), the CLI's own host and `--mcp-tools`, and the teardown,
 * in which every step runs even if the one before failed: the agent must stop whatever happens.
 */
export class Conversation {
  readonly #init: ConversationInit;
  readonly #done: Promise<Ending>;
  #resolveDone!: (ending: Ending) => void;
  #ended = false;
  #phase: Phase = "initialize";
  #interrupts = 0;
  /** Aborted when the turn is cancelled or the conversation ends: a pending question ends unanswered. */
  readonly #questionsEnd = new AbortController();

  constructor(init: ConversationInit) {
    this.#init = init;
    this.#done = new Promise((resolve) => (this.#resolveDone = resolve));
  }

  get phase(): Phase {
    return this.#phase;
  }

  /** Runs the conversation to its end; resolves with the exit code, after the view's `finish`. */
  async run(): Promise<number> {
    const { options, io, view, driver, agent, signal } = this.#init;
    const started = this.#init.startedAt ?? performance.now();
    const { host, mcpTools, askPermission } = clientSide(
      options,
      io,
      view,
      driver.hostsTerminals,
      this.#questionsEnd.signal,
    );
    void agent?.notJson.then((snippet) => {
      if (this.#phase === "initialize") {
        this.#end(notAcp(options.agent, snippet));
      }
    });
    driver.connect(this.#init.stream, { view, host, mcpTools, askPermission });
    void agent?.exited.then((exit) => this.#agentGone(exit, agent));
    const stop = () => this.#end(stoppedEnding(signal.reason));
    signal.addEventListener("abort", stop, { once: true });
    if (signal.aborted) {
      stop();
    }
    const timeout =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            this.#cancelTurn();
            this.#end({
              exitCode: ExitCode.timeout,
              error: `Timed out after ${options.timeoutMs! / 1000} s (--timeout), ${PHASES[this.#phase].timedOut}`,
            });
          }, options.timeoutMs);
    void this.#converse();

    const ending = await this.#done;
    clearTimeout(timeout);
    signal.removeEventListener("abort", stop);
    this.#questionsEnd.abort();
    driver.detach();
    await mcpTools
      ?.dispose()
      .catch((error: unknown) =>
        view.notice(`Could not stop the MCP tools' commands: ${String(error)}`),
      );
    await host
      ?.dispose()
      .catch((error: unknown) => view.notice(`Could not stop every terminal: ${String(error)}`));
    driver.close();
    // A second Ctrl-C means now: no grace for the agent.
    await agent
      ?.kill(this.#interrupts > 1 ? 0 : undefined)
      .catch((error: unknown) => view.notice(`Could not stop the agent: ${String(error)}`));
    view.finish({
      ...ending,
      elapsedMs: performance.now() - started,
      terminals: driver.terminalRecords(),
    });
    return ending.exitCode;
  }

  /**
   * Ctrl-C: during a turn, the first one cancels it (the driver stops its commands, then the turn
   * is cancelled) and gives the agent `--cancel-grace` to end it; a second one, or one outside a
   * turn, quits at once.
   */
  interrupt(): void {
    const { view, driver, options } = this.#init;
    this.#interrupts += 1;
    if (this.#interrupts > 1 || this.#phase !== "turn") {
      this.#end({ exitCode: ExitCode.cancelled, error: "Interrupted" });
      return;
    }
    view.notice("Cancelling the turn… (press Ctrl-C again to quit at once)");
    driver.interrupt(() => this.#cancelTurn());
    setTimeout(() => {
      this.#end({
        exitCode: ExitCode.cancelled,
        error: `Cancelled; the agent did not end its turn within ${options.cancelGraceMs / 1000} s (--cancel-grace)`,
      });
    }, options.cancelGraceMs).unref();
  }

  #end(ending: Ending): void {
    if (this.#ended) {
      return;
    }
    this.#ended = true;
    this.#resolveDone(ending);
  }

  #cancelTurn(): void {
    this.#questionsEnd.abort();
    this.#init.driver.cancelTurn();
  }

  async #converse(): Promise<void> {
    const { options, driver, agent } = this.#init;
    if (this.#init.offerTimedOut === true) {
      return this.#end(initTimedOut(options.agent, options.initTimeoutMs));
    }
    const ac = new AbortController();
    try {
      const initTimeout = delay(options.initTimeoutMs, "timeout" as const, { signal: ac.signal });
      const answered = await Promise.race([driver.initialize(), initTimeout]);
      ac.abort();
      if (answered === "timeout") {
        return this.#end(initTimedOut(options.agent, options.initTimeoutMs));
      }
      if (answered !== undefined) {
        return this.#end(answered);
      }
      this.#phase = "session";
      await driver.startSession();
      this.#phase = "turn";
      // One turn per run for now; a session of several turns prompts again here.
      const turn = await driver.prompt(options.prompt);
      this.#end(turnEnding(turn, this.#interrupts > 0));
    } catch (error) {
      ac.abort();
      // A request that failed because the agent died is reported by #agentGone, with its exit code.
      const exited =
        agent === undefined
          ? undefined
          : await Promise.race([agent.exited, delay(EXIT_DRAIN_MS * 2, undefined)]);
      if (exited === undefined) {
        this.#end(failureEnding(error, this.#phase, options.agent, options.agentLog));
      }
    }
  }

  async #agentGone(exit: AgentExit, agent: AgentHandle): Promise<void> {
    if (this.#ended) {
      return;
    }
    // Its last messages (say, the prompt's answer) may still be in the pipe: let them be read.
    await Promise.race([this.#init.driver.closed, delay(EXIT_DRAIN_MS)]);
    await delay(0);
    await nextTurn();
    const { options } = this.#init;
    this.#end(
      agentExited(
        exit,
        PHASES[this.#phase].agentExited,
        options.agent,
        options.agentLog,
        agent.lastStderrLine,
      ),
    );
  }
}
