import { AgentProcess } from "./agent/agent-process.js";
import type { TerminalLogin } from "./agent/failure-messages.js";
import { resolveAgent } from "./agent/known-agents.js";
import { loginLine, runTerminalLogin } from "./agent/terminal-login.js";
import { approveTerminalLogin } from "./ask/login-approval.js";
import type { RunOptions } from "./command/args.js";
import { checkBeforeLaunch } from "./command/preflight.js";
import { Conversation } from "./conversation/conversation.js";
import type { ConversationInit } from "./conversation/conversation-init.js";
import type { UserMcpServer } from "./conversation/driver.js";
import { Stopped } from "./conversation/endings.js";
import { readMcpConfig } from "./conversation/mcp-config.js";
import {
  onePrompt,
  PipedPrompts,
  typedPrompts,
  type PromptSource,
} from "./conversation/prompts.js";
import { listenForStops } from "./conversation/stop-signals.js";
import { pickDriverOrRestart } from "./drivers/pick-driver.js";
import { ProtocolMemory } from "./drivers/protocol-memory.js";
import { ExitCode } from "./exit-codes.js";
import { JsonRenderer } from "./render/json-renderer.js";
import { outputOf, type Output } from "./render/output.js";
import { QuietRenderer } from "./render/quiet-renderer.js";
import { TextRenderer } from "./render/text-renderer.js";

export interface CliIo {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  /** Where the agent process starts. */
  cwd: string;
  version: string;
  /** The environment (short names' config, login variables); default: the process's. */
  env?: NodeJS.ProcessEnv;
}

/** Signals that stop the run before a conversation listens for them (during the version offer). */
const OFFER_STOPS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** A usage error before launch: JSON readers still get their result line; people get the one line. */
function usageError(options: RunOptions, out: Output, err: Output, problem: string): number {
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

/**
 * `acp-terminal run`: resolves a short agent name, checks what can be checked before launch, reads
 * `--mcp-config`, finds where prompts come from (the argument; stdin piped, whose first prompt is
 * awaited before launch; a TTY, interactively), starts the agent, picks the driver of the best
 * dialect it offers (or `--protocol`'s), and holds one conversation with it over its stdio,
 * stopped by the process's signals. A terminal login (`--auth` naming one) runs in the user's
 * terminal between two launches. Resolves with the process exit code; never throws.
 */
export async function run(given: RunOptions, io: CliIo): Promise<number> {
  const err = outputOf(io.stderr);
  const out = outputOf(io.stdout);
  const env = io.env ?? process.env;
  const agent = resolveAgent(given.agent, env);
  if ("error" in agent) {
    return usageError(given, out, err, agent.error);
  }
  const options: RunOptions = { ...given, agent: agent.commandLine };
  const problem = checkBeforeLaunch(options, io.cwd);
  if (problem !== undefined) {
    return usageError(options, out, err, problem);
  }
  let userServers: UserMcpServer[] = [];
  if (options.session?.mcpConfig !== undefined) {
    const read = readMcpConfig(options.session.mcpConfig);
    if ("error" in read) {
      return usageError(options, out, err, read.error);
    }
    userServers = read;
  }
  const prompts = await promptsOf(options, io);
  if (prompts === undefined) {
    return usageError(
      options,
      out,
      err,
      "Missing prompt: give it as the last argument, or one a line on stdin (stdin ended without one)",
    );
  }
  const renderer: ConversationInit["view"] = options.json
    ? new JsonRenderer(out, err, { verbose: options.verbose === true })
    : options.session?.quiet === true
      ? new QuietRenderer(out, err)
      : new TextRenderer(out, err);
  let login: TerminalLogin | undefined;
  let runOptions = options;
  for (;;) {
    const result = await converse(runOptions, io, env, renderer, prompts, userServers);
    if (typeof result === "number") {
      return result;
    }
    if (login !== undefined) {
      return ExitCode.agentFailed; // a second login asked for: never loop
    }
    login = result;
    const failure =
      (await approveTerminalLogin(
        { methodId: login.methodId, line: loginLine(options.agent, login), env: login.env },
        { yes: options.yes, cwd: io.cwd, stdin: io.stdin, stderr: io.stderr },
      )) ??
      (await runTerminalLogin(options.agent, login, {
        cwd: io.cwd,
        env,
        tty: io.stdin.isTTY === true,
      }));
    if (failure !== undefined) {
      renderer.finish({
        exitCode: ExitCode.agentFailed,
        error: failure,
        elapsedMs: 0,
        terminals: [],
      });
      return ExitCode.agentFailed;
    }
    // Logged in: start again, without --auth.
    const { auth: _auth, ...rest } = options.session ?? {};
    runOptions = { ...options, session: rest };
  }
}

async function promptsOf(options: RunOptions, io: CliIo): Promise<PromptSource | undefined> {
  if (options.prompt !== undefined) {
    return onePrompt(options.prompt);
  }
  if (io.stdin.isTTY === true) {
    return typedPrompts(io.stdin, io.stderr);
  }
  const piped = new PipedPrompts(io.stdin);
  return (await piped.hasPrompt()) ? piped : undefined;
}

/** One launch of the agent and one conversation; a number is the exit code, a login is to run. */
async function converse(
  options: RunOptions,
  io: CliIo,
  env: NodeJS.ProcessEnv,
  renderer: ConversationInit["view"],
  prompts: PromptSource,
  userServers: UserMcpServer[],
): Promise<number | TerminalLogin> {
  const startedAt = performance.now();
  const launch = () =>
    new AgentProcess({
      commandLine: options.agent,
      cwd: io.cwd,
      agentLogPath: options.agentLog,
      stderr: io.stderr,
    });
  let agent = launch();
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
  const terminalLogin = io.stdin.isTTY === true && io.stderr.isTTY === true;
  const memory = ProtocolMemory.of(env);
  const picked = await pickDriverOrRestart(
    options,
    {
      stream: agent.stream,
      restart: async () => {
        await agent.kill();
        agent = launch();
        return agent.stream;
      },
    },
    { version: io.version, terminalLogin, memory },
    offerStopped.signal,
  ).finally(() => {
    for (const signal of OFFER_STOPS) {
      process.off(signal, onSignal);
    }
  });
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
  if (picked.v1Because !== undefined && (options.verbose === true || !picked.remembered)) {
    renderer.notice(
      picked.remembered
        ? `acp-terminal: protocol: ACP v1: the agent ${picked.v1Because}`
        : `acp-terminal: the agent ${picked.v1Because}: started it again speaking ACP v1, which is remembered for this agent command once it answers (in ${memory.file}; delete the entry to offer v2 again)`,
    );
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
    prompts,
    userServers,
    env,
  });
  const unlisten = listenForStops({
    stdout: io.stdout,
    interrupt: () => conversation.interrupt(),
    stop: (ending) => stopped.abort(new Stopped(ending)),
  });
  try {
    const code = await conversation.run();
    return conversation.login ?? code;
  } finally {
    unlisten();
  }
}
