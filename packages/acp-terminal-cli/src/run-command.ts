import { defaultAgentLog } from "./agent/agent-log.js";
import { AgentProcess } from "./agent/agent-process.js";
import { agentKey } from "./agent/agent-key.js";
import type { TerminalLogin } from "./agent/failure-messages.js";
import { pinnedAgentLines, resolveAgent } from "./agent/known-agents.js";
import { loginLine, runTerminalLogin } from "./agent/terminal-login.js";
import { approveTerminalLogin } from "./ask/login-approval.js";
import type { RunOptions } from "./command/args.js";
import { readPermissionPolicy } from "./command/permission-policy.js";
import { checkBeforeLaunch } from "./command/preflight.js";
import { Conversation } from "./conversation/conversation.js";
import type { ConversationInit } from "./conversation/conversation-init.js";
import type { SessionStarted, UserMcpServer } from "./conversation/driver.js";
import { Stopped } from "./conversation/endings.js";
import { readMcpConfig } from "./conversation/mcp-config.js";
import { choosePrompts } from "./conversation/prompt-choice.js";
import type { PromptSource } from "./conversation/prompts.js";
import { TtyInput } from "./conversation/tty-input.js";
import { TypedHistory } from "./state/typed-history.js";
import type { Renderer } from "./view/renderer.js";
import { listenForStops } from "./conversation/stop-signals.js";
import { pickDriverOrRestart } from "./drivers/pick-driver.js";
import { ProtocolMemory } from "./drivers/protocol-memory.js";
import { ExitCode } from "./exit-codes.js";
import { JsonRenderer } from "./render/json-renderer.js";
import { SessionHold } from "./sessions/session-hold.js";
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
  const prepared = await prepare(given, io, env, err);
  if ("error" in prepared) {
    return usageError(prepared.options, out, err, prepared.error);
  }
  const { options, userServers, chosen, hold, key } = prepared;
  const renderer: ConversationInit["view"] = options.json
    ? new JsonRenderer(out, err, { verbose: options.verbose === true })
    : options.session?.quiet === true
      ? new QuietRenderer(out, err)
      : new TextRenderer(out, err, {
          agentLog: options.agentLog,
          turnSeparators: chosen === undefined || options.lines === true,
        });
  // No prompt given and stdin a TTY: a session typed in, the keyboard held by one owner.
  const tty =
    chosen === undefined
      ? new TtyInput({
          stdin: io.stdin,
          stderr: io.stderr,
          history: new TypedHistory(env, key),
          notice: (line) => renderer.notice(line),
          typing: (text) => renderer.typed?.(text),
        })
      : undefined;
  if (tty !== undefined) {
    answeredThrough(renderer, tty);
  }
  const launch: Launch = {
    options,
    io,
    env,
    renderer,
    prompts: chosen ?? tty!,
    userServers,
    onSessionStarted: (session) =>
      hold.started(session).forEach((problem) => renderer.notice(problem)),
    tty,
  };
  let login: TerminalLogin | undefined;
  try {
    for (;;) {
      const result = await converse(launch);
      if (typeof result === "number") {
        return result;
      }
      if (login !== undefined) {
        return ExitCode.agentFailed; // a second login asked for: never loop
      }
      login = result;
      const failure = (await loginApproved(login, launch)) ?? (await runLogin(login, launch));
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
      const { auth: _auth, ...rest } = launch.options.session ?? {};
      launch.options = { ...launch.options, session: rest };
    }
  } finally {
    tty?.close();
    hold.release();
  }
}

/** The terminal login shown (a question on the TTY): why it does not run, or undefined. */
async function loginApproved(login: TerminalLogin, launch: Launch): Promise<string | undefined> {
  const { options, io, tty } = launch;
  const line = loginLine(options.agent, login);
  const where = { yes: options.yes, cwd: io.cwd, stdin: io.stdin, stderr: io.stderr };
  if (tty === undefined) {
    return approveTerminalLogin({ methodId: login.methodId, line, env: login.env }, where);
  }
  // Asked as any question of the session: answered by the line typed after it.
  tty.questionOpened();
  try {
    return await approveTerminalLogin(
      { methodId: login.methodId, line, env: login.env },
      { ...where, stdin: tty.answers },
    );
  } finally {
    tty.answers.resume();
    tty.questionClosed();
  }
}

/** The terminal login runs in the user's terminal: the session lets go of it meanwhile. */
async function runLogin(login: TerminalLogin, launch: Launch): Promise<string | undefined> {
  const { options, io, env, tty } = launch;
  tty?.suspend();
  try {
    return await runTerminalLogin(options.agent, login, {
      cwd: io.cwd,
      env,
      tty: io.stdin.isTTY === true,
    });
  } finally {
    tty?.resume();
  }
}

/** A question shown by the view (it pauses for one) is answered by the line typed next. */
function answeredThrough(view: Renderer, tty: TtyInput): void {
  const pause = view.pause.bind(view);
  const resume = view.resume.bind(view);
  view.pause = () => {
    tty.questionOpened();
    pause();
  };
  view.resume = () => {
    resume();
    tty.questionClosed();
  };
}

interface Prepared {
  options: RunOptions;
  userServers: UserMcpServer[];
  /** The prompts given; undefined: a session typed on the TTY. */
  chosen: PromptSource | undefined;
  hold: SessionHold;
  /** What the agent is called in the state directory. */
  key: string;
}

/** What each launch of the agent shares (a terminal login launches it again). */
interface Launch {
  options: RunOptions;
  io: CliIo;
  env: NodeJS.ProcessEnv;
  renderer: ConversationInit["view"];
  prompts: PromptSource;
  userServers: UserMcpServer[];
  onSessionStarted: (session: SessionStarted) => void;
  tty: TtyInput | undefined;
}

/**
 * Everything decided before the agent starts, in order: the short name, the checks before launch,
 * where the agent's stderr goes, `--mcp-config`, the session (`--name` finds the one to resume,
 * which is then held against other runs), and the prompts (read whole when piped). A failure is a
 * usage error, said with the options known by then.
 */
async function prepare(
  given: RunOptions,
  io: CliIo,
  env: NodeJS.ProcessEnv,
  err: Output,
): Promise<Prepared | { error: string; options: RunOptions }> {
  const agent = resolveAgent(given.agent, env);
  if ("error" in agent) {
    return { error: agent.error, options: given };
  }
  if (agent.pinned !== undefined && agent.name !== undefined && !given.json) {
    err.write(
      pinnedAgentLines(agent.name, agent.pinned)
        .map((line) => `${line}\n`)
        .join(""),
    );
  }
  const launched: RunOptions = {
    ...given,
    agent: agent.commandLine,
    ...(agent.pinned !== undefined && agent.name !== undefined ? { ownCommands: agent.name } : {}),
    ...(agent.pinned?.noFs !== undefined ? { noFs: true } : {}),
  };
  const problem = checkBeforeLaunch(launched, io.cwd);
  if (problem !== undefined) {
    return { error: problem, options: launched };
  }
  let options = withAgentLog(launched, env, agent.name, err);
  let userServers: UserMcpServer[] = [];
  if (options.session?.mcpConfig !== undefined) {
    const read = readMcpConfig(options.session.mcpConfig);
    if ("error" in read) {
      return { error: read.error, options };
    }
    userServers = read;
  }
  const policySource = options.permissions?.policySource;
  if (policySource !== undefined) {
    const policy = readPermissionPolicy(policySource, io.cwd);
    if (typeof policy === "string") {
      return { error: policy, options };
    }
    options = { ...options, permissions: { ...options.permissions, policy } };
  }
  const key = agentKey(options.agent, agent.name);
  const hold = new SessionHold(env, key, options.cwd, options.session?.name);
  const resume = hold.resumeId(options.session?.resume);
  if (resume !== undefined) {
    const held = hold.take(resume);
    if (held !== undefined) {
      return { error: held, options };
    }
    options = { ...options, session: { ...options.session, resume } };
  }
  const chosen = await choosePrompts(options, io);
  if (chosen !== undefined && "error" in chosen) {
    hold.release();
    return { error: chosen.error, options };
  }
  return { options, userServers, chosen, hold, key };
}

/**
 * The agent's stderr goes to `--agent-log`, to ours with `--agent-stderr`, else to its log in the
 * state directory (said at start by the text view); where that log cannot be had, to ours.
 */
function withAgentLog(
  options: RunOptions,
  env: NodeJS.ProcessEnv,
  name: string | undefined,
  err: Output,
): RunOptions {
  if (options.agentLog !== undefined || options.agentStderr === true) {
    return options;
  }
  const log = defaultAgentLog(env, agentKey(options.agent, name));
  if ("error" in log) {
    err.write(`acp-terminal: the agent's stderr is shown here: ${log.error}\n`);
    return { ...options, agentStderr: true };
  }
  return { ...options, agentLog: log.path };
}

/** One launch of the agent and one conversation; a number is the exit code, a login is to run. */
async function converse(launch: Launch): Promise<number | TerminalLogin> {
  const { options, io, env, renderer, prompts, userServers, onSessionStarted, tty } = launch;
  const startedAt = performance.now();
  const { agent, picked, signalled, memory } = await startAndOffer(launch);
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
    io: tty === undefined ? io : { ...io, stdin: tty.answers },
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
    onSessionStarted,
  });
  if (tty !== undefined) {
    tty.onInterrupt = () => conversation.interrupt();
  }
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

/**
 * Starts the agent and offers it the protocol (starting it again when the offer asks). Until the
 * conversation listens (with its own handlers), a signal stops the offer: `signalled` says which.
 */
async function startAndOffer(launch: Launch): Promise<{
  agent: AgentProcess;
  picked: Awaited<ReturnType<typeof pickDriverOrRestart>>;
  signalled: NodeJS.Signals | undefined;
  memory: ProtocolMemory;
}> {
  const { options, io, env, tty } = launch;
  const start = () =>
    new AgentProcess({
      commandLine: options.agent,
      cwd: io.cwd,
      agentLogPath: options.agentLog,
      stderr: io.stderr,
    });
  let agent = start();
  const offerStopped = new AbortController();
  let signalled: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    signalled = signal;
    offerStopped.abort();
  };
  for (const signal of OFFER_STOPS) {
    process.on(signal, onSignal);
  }
  // The TTY is in raw mode: its Ctrl-C is a key, not a signal.
  if (tty !== undefined) {
    tty.onInterrupt = () => onSignal("SIGINT");
  }
  const terminalLogin = io.stdin.isTTY === true && io.stderr.isTTY === true;
  const memory = ProtocolMemory.of(env);
  const picked = await pickDriverOrRestart(
    options,
    {
      stream: agent.stream,
      restart: async () => {
        await agent.kill();
        agent = start();
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
  return { agent, picked, signalled, memory };
}
