import { AgentProcess } from "./agent/agent-process.js";
import type { RunOptions } from "./command/args.js";
import { checkBeforeLaunch } from "./command/preflight.js";
import { Conversation } from "./conversation/conversation.js";
import { Stopped } from "./conversation/endings.js";
import { listenForStops } from "./conversation/stop-signals.js";
import { pickDriver } from "./drivers/pick-driver.js";
import { ExitCode } from "./exit-codes.js";
import { JsonRenderer } from "./render/json-renderer.js";
import { outputOf } from "./render/output.js";
import { TextRenderer } from "./render/text-renderer.js";

export interface CliIo {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  /** Where the agent process starts. */
  cwd: string;
  version: string;
}

/** Signals that stop the run before a conversation listens for them (during the version offer). */
const OFFER_STOPS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * `acp-terminal run`: checks what can be checked before launch, starts the agent, picks the
 * driver of the protocol version (`--protocol`), and holds one conversation with the agent over
 * its stdio, stopped by the process's signals. Resolves with the process exit code; never throws.
 */
export async function run(options: RunOptions, io: CliIo): Promise<number> {
  const err = outputOf(io.stderr);
  const out = outputOf(io.stdout);
  const problem = checkBeforeLaunch(options, io.cwd);
  if (problem !== undefined) {
    // Machines reading --json still get their result line; people get the one line of error.
    if (options.json) {
      new JsonRenderer(out, err).finish({
        exitCode: ExitCode.usage,
        error: problem,
        elapsedMs: 0,
        terminals: [],
      });
    } else {
      err.write(`${problem}\n`);
    }
    return ExitCode.usage;
  }
  const renderer = options.json ? new JsonRenderer(out, err) : new TextRenderer(out, err);
  const startedAt = performance.now();
  const agent = new AgentProcess({
    commandLine: options.agent,
    cwd: io.cwd,
    agentLogPath: options.agentLog,
    stderr: io.stderr,
  });
  // Until the conversation listens (with its own handlers), a signal stops the offer, and the run.
  const offerStopped = new AbortController();
  let signalled: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    signalled = signal;
    offerStopped.abort();
  };
  for (const signal of OFFER_STOPS) {
    process.on(signal, onSignal);
  }
  const picked = await pickDriver(options, agent.stream, io.version, offerStopped.signal).finally(
    () => {
      for (const signal of OFFER_STOPS) {
        process.off(signal, onSignal);
      }
    },
  );
  if (signalled !== undefined) {
    await agent.kill(0).catch(() => undefined);
    renderer.finish({
      exitCode: ExitCode.cancelled,
      error: signalled === "SIGINT" ? "Interrupted" : `Stopped by ${signalled}`,
      elapsedMs: performance.now() - startedAt,
      terminals: [],
    });
    return ExitCode.cancelled;
  }
  const stopped = new AbortController();
  const conversation = new Conversation({
    options,
    io,
    view: renderer,
    driver: picked.driver,
    stream: picked.stream,
    signal: stopped.signal,
    agent,
    offerTimedOut: picked.offerTimedOut,
    startedAt,
  });
  const unlisten = listenForStops({
    stdout: io.stdout,
    interrupt: () => conversation.interrupt(),
    stop: (ending) => stopped.abort(new Stopped(ending)),
  });
  try {
    return await conversation.run();
  } finally {
    unlisten();
  }
}
