import { setImmediate as nextTurn, setTimeout as delay } from "node:timers/promises";
import type { AgentExit } from "../agent/agent-process.js";
import {
  agentExited,
  initTimedOut,
  isErrorAnswer,
  notAcp,
  type Ending,
  type TerminalLogin,
} from "../agent/failure-messages.js";
import { ExitCode } from "../exit-codes.js";
import { clientSide } from "./client-side.js";
import type { AgentHandle, ConversationInit } from "./conversation-init.js";
import { failureEnding, PHASES, stoppedEnding, turnEnding, type Phase } from "./endings.js";
import { onePrompt, type PromptSource } from "./prompts.js";
import { AUTH_REQUIRED, authenticate, loginHint, serversFor } from "./session-setup.js";
import { tearDown } from "./teardown.js";

/** After the agent's process exits, how long its last messages get to arrive. */
export const EXIT_DRAIN_MS = 500;

/**
 * One conversation with an agent, whatever version its driver speaks: the phases (initialize,
 * `--auth`, the session, then a turn per prompt with idle phases between) and how each can end
 * (the agent's errors and exit, `--timeout`, `--init-timeout`, Ctrl-C, the signal), the questions
 * asked of the user (command approval and permission requests, one at a time), the CLI's own
 * host, files and `--mcp-tools`, and the teardown, in which every step runs even if the one before
 * failed: the agent must stop whatever happens. The line that ends a failed run is said before
 * the teardown (an agent can take seconds to exit). Background terminals live across turns and
 * end with the session.
 */
export class Conversation {
  readonly #init: ConversationInit;
  readonly #done: Promise<Ending>;
  #resolveDone!: (ending: Ending) => void;
  #ended = false;
  #phase: Phase = "initialize";
  /** Ctrl-C during the turn under way (or, outside a turn, in all). */
  #interrupts = 0;
  /** The turn under way was cancelled by Ctrl-C. */
  #turnInterrupted = false;
  /** `--timeout`'s deadline of the start, or of the turn under way. */
  #timeout: NodeJS.Timeout | undefined;
  /** After a Ctrl-C, the `--cancel-grace` deadline of the turn under way. */
  #graceTimer: NodeJS.Timeout | undefined;
  /** Aborted when the turn is cancelled or the conversation ends: a pending question ends unanswered. */
  #questionsEnd = new AbortController();
  /** Aborted by Ctrl-C at an interactive prompt, or at the end: the wait for a prompt ends. */
  readonly #promptsEnd = new AbortController();
  readonly #prompts: PromptSource;
  #login: TerminalLogin | undefined;

  constructor(init: ConversationInit) {
    this.#init = init;
    this.#prompts = init.prompts ?? onePrompt(init.options.prompt ?? "");
    this.#done = new Promise((resolve) => (this.#resolveDone = resolve));
  }

  get phase(): Phase {
    return this.#phase;
  }

  /** Runs the conversation to its end; resolves with the exit code, after the view's `finish`. */
  async run(): Promise<number> {
    const { options, io, view, driver, agent, signal } = this.#init;
    const started = this.#init.startedAt ?? performance.now();
    const { host, mcpTools, askPermission, files, terminalLogin } = clientSide(
      options,
      io,
      view,
      driver.hostsTerminals,
      () => this.#questionsEnd.signal,
    );
    void agent?.notJson.then((snippet) => {
      if (this.#phase === "initialize") {
        this.#end(notAcp(options.agent, snippet));
      }
    });
    driver.connect(this.#init.stream, {
      view,
      host,
      mcpTools,
      askPermission,
      files,
      terminalLogin,
      ...(agent?.tapLines === undefined ? {} : { tapLines: (tap) => agent.tapLines?.(tap) }),
    });
    void agent?.exited.then((exit) => this.#agentGone(exit, agent));
    const stop = () => this.#end(stoppedEnding(signal.reason));
    signal.addEventListener("abort", stop, { once: true });
    if (signal.aborted) {
      stop();
    }
    this.#armTimeout();
    void this.#converse();

    const ending = await this.#done;
    // Said now: the teardown below waits for the agent to exit, which can take seconds.
    if (ending.error !== undefined) {
      view.failed?.(ending.error);
    }
    clearTimeout(this.#timeout);
    clearTimeout(this.#graceTimer);
    signal.removeEventListener("abort", stop);
    this.#questionsEnd.abort();
    this.#promptsEnd.abort();
    // A second Ctrl-C means now: no grace for the agent.
    await tearDown({ view, driver, host, mcpTools, agent }, this.#interrupts > 1);
    files.close();
    if (ending.login !== undefined) {
      // Not the end of the run: the login runs, then the agent starts again.
      this.#login = ending.login;
      return ending.exitCode;
    }
    view.finish({
      ...ending,
      elapsedMs: performance.now() - started,
      terminals: driver.terminalRecords(),
    });
    return ending.exitCode;
  }

  /** `--auth` named a terminal login: the conversation ended for it to run (the view is not finished). */
  get login(): TerminalLogin | undefined {
    return this.#login;
  }

  /**
   * Ctrl-C: during a turn, the first one cancels it (the driver stops its commands, then the turn
   * is cancelled) and gives the agent `--cancel-grace` to end it; a second one quits at once. At
   * an interactive prompt it ends the session (as Ctrl-D does); anywhere else it quits at once.
   */
  interrupt(): void {
    const { view, driver, options } = this.#init;
    this.#interrupts += 1;
    if (this.#phase === "idle" && this.#prompts.interactive) {
      this.#promptsEnd.abort();
      return;
    }
    if (this.#interrupts > 1 || this.#phase !== "turn") {
      this.#end({ exitCode: ExitCode.cancelled, error: "Interrupted" });
      return;
    }
    this.#turnInterrupted = true;
    view.notice("Cancelling the turn… (press Ctrl-C again to quit at once)");
    driver.interrupt(() => this.#cancelTurn());
    this.#graceTimer = setTimeout(() => {
      this.#end({
        exitCode: ExitCode.cancelled,
        error: `Cancelled; the agent did not end its turn within ${options.cancelGraceMs / 1000} s (--cancel-grace)`,
      });
    }, options.cancelGraceMs);
    this.#graceTimer.unref();
  }

  /**
   * `--timeout` bounds the start (initialize, the session) and each turn, from its start: the
   * time spent waiting for the next prompt (a person thinking at `›`) does not count.
   */
  #armTimeout(): void {
    const { timeoutMs } = this.#init.options;
    clearTimeout(this.#timeout);
    if (timeoutMs === undefined) {
      return;
    }
    this.#timeout = setTimeout(() => {
      this.#cancelTurn();
      this.#end({
        exitCode: ExitCode.timeout,
        error: `Timed out after ${timeoutMs / 1000} s (--timeout), ${PHASES[this.#phase].timedOut}`,
      });
    }, timeoutMs);
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
    const { options, driver, agent, view } = this.#init;
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
      const intro = driver.intro;
      if (intro !== undefined) {
        view.initialized?.({ protocol: driver.protocol, ...intro });
      }
      this.#phase = "session";
      const method = options.session?.auth;
      if (method !== undefined && intro !== undefined) {
        const stop = await authenticate(driver, intro, method, this.#init.env ?? process.env);
        if (stop !== undefined) {
          return this.#end(stop);
        }
      }
      const servers =
        intro === undefined ? [] : serversFor(intro, this.#init.userServers ?? [], view);
      const session = await driver.startSession(options.session?.resume, servers);
      view.sessionStarted?.(session);
      this.#init.onSessionStarted?.(session);
      this.#end(await this.#turns());
    } catch (error) {
      ac.abort();
      // A request that failed because the agent died is reported by #agentGone, with its exit
      // code; an error answer (the agent runs on) is reported at once.
      const exited =
        agent === undefined || isErrorAnswer(error)
          ? undefined
          : await Promise.race([agent.exited, delay(EXIT_DRAIN_MS * 2, undefined)]);
      if (exited === undefined) {
        const code: unknown = Reflect.get(Object(error), "code");
        const hint = code === AUTH_REQUIRED ? loginHint(driver.intro?.authMethods ?? []) : "";
        this.#end(failureEnding(error, this.#phase, options.agent, options.agentLog, hint));
      }
    }
  }

  /**
   * A turn per prompt until the prompts end: the last turn's ending is the run's. A turn that
   * ends otherwise than `end_turn` ends the run, except a Ctrl-C'd one in an interactive session
   * (back to the prompt).
   */
  async #turns(): Promise<Ending> {
    const { driver, view } = this.#init;
    let last: Ending | undefined;
    for (;;) {
      this.#phase = "idle";
      this.#interrupts = 0;
      clearTimeout(this.#timeout);
      const text = await this.#prompts.next(this.#promptsEnd.signal);
      if (text === undefined) {
        return last ?? { exitCode: ExitCode.ok };
      }
      this.#armTimeout();
      this.#phase = "turn";
      this.#turnInterrupted = false;
      this.#questionsEnd = new AbortController();
      view.turnStarted?.(text);
      const turn = await driver.prompt(text);
      clearTimeout(this.#graceTimer);
      last = turnEnding(turn, this.#turnInterrupted);
      view.turnEnded?.({ ...turn, running: driver.runningTerminals() });
      this.#prompts.turnEnded?.({
        cancelled: this.#turnInterrupted || turn.stopReason === "cancelled",
      });
      const goOn =
        last.exitCode === ExitCode.ok ||
        (this.#prompts.interactive && this.#turnInterrupted && turn.error === undefined);
      if (!goOn) {
        return last;
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
