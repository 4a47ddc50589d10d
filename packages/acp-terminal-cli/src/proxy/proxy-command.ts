import path from "node:path";
import { constants } from "node:os";
import type { Readable } from "node:stream";
import {
  describeContainment,
  describeSandbox,
  TerminalHost,
  type ApprovalAsker,
} from "acp-terminal";
import { AgentChild, type AgentExit } from "../agent/agent-process.js";
import { resolveAgent } from "../agent/known-agents.js";
import { checkBeforeLaunch } from "../command/preflight.js";
import { hostSandbox } from "../command/sandbox-host.js";
import { MAX_MESSAGE_BYTES } from "../agent/ndjson-stdio.js";
import { editorApprovalPolicy } from "./editor-asker.js";
import {
  editorOutput,
  LineReader,
  LineWriter,
  MAX_UNREAD_BYTES,
  READ_AHEAD_BYTES,
} from "./line-io.js";
import { stdioPort, type Port } from "./ports.js";
import {
  parseProxyCommand,
  PROXY_USAGE,
  type ProxyIo,
  type ProxyOptions,
} from "./proxy-options.js";
import { refuseEditor } from "./refuse-editor.js";
import { Relay, type RelayOptions } from "./relay.js";
import { runChainComponent } from "./chain.js";

/** The agent gets this long to write its last lines once it has exited (a child may hold stdout). */
const LAST_LINES_MS = 2000;

const TOO_LONG = {
  jsonrpc: "2.0",
  id: null,
  error: {
    code: -32600,
    message: `Invalid Request: a message of more than ${MAX_MESSAGE_BYTES} bytes was dropped`,
  },
};

/** The signals an editor stops its agent's process with: the proxy ends the agent, then exits 128 + N. */
const EDITOR_SIGNALS = ["SIGTERM", "SIGHUP", "SIGINT"] as const;

/** The proxy's exit status for the agent's: its code, or 128 + the signal's number. */
export function exitStatusOf(exit: AgentExit): number {
  if (exit.code !== null) {
    return exit.code;
  }
  const signal = exit.signal === null ? undefined : constants.signals[exit.signal];
  return signal === undefined ? 1 : 128 + signal;
}

function howItExited(exit: AgentExit): string {
  if (exit.error !== undefined) {
    return `the agent could not be started (${exit.error.message})`;
  }
  if (exit.signal !== null) {
    return `the agent was killed by ${exit.signal}`;
  }
  return `the agent exited with code ${String(exit.code)}${signalOfShellStatus(exit.code)}`;
}

/** A shell reports a command killed by signal N as 128 + N: name the signal the editor's user can look up. */
function signalOfShellStatus(code: number | null): string {
  if (code === null || code <= 128) {
    return "";
  }
  const name = Object.entries(constants.signals).find(([, number]) => number === code - 128)?.[0];
  return name === undefined ? "" : ` (128 + ${name}: killed by ${name})`;
}

/**
 * `acp-terminal proxy`: parses its arguments, then relays between the editor (this process's
 * stdio) and the agent it starts, or, with no agent, runs as a component of a conductor's proxy
 * chain. Resolves with the exit status; never throws.
 */
export async function runProxy(argv: string[], io: ProxyIo): Promise<number> {
  const parsed = parseProxyCommand(argv, io.cwd, (base, p) => path.resolve(base, p));
  if (parsed.kind === "help") {
    io.stdout.write(PROXY_USAGE);
    return 0;
  }
  const problem =
    parsed.kind === "error"
      ? `${parsed.message}\nRun "acp-terminal proxy --help" for usage.`
      : undefined;
  if (problem !== undefined || parsed.kind === "error") {
    return refuseEditor(io, `acp-terminal proxy: ${problem ?? ""}`);
  }
  const { options } = parsed;
  if (options.agent === undefined) {
    return runChainComponent(io, relayOptions(options, io));
  }
  const agent = resolveAgent(options.agent, io.env);
  const launchProblem =
    "error" in agent
      ? agent.error
      : checkBeforeLaunch({ ...options, agent: agent.commandLine }, io.cwd);
  if ("error" in agent || launchProblem !== undefined) {
    return refuseEditor(io, `acp-terminal proxy: ${launchProblem ?? ""}`);
  }
  return relayToAgent(agent.commandLine, options, io);
}

/** How the relay builds its host and speaks of itself. */
function relayOptions(options: ProxyOptions, io: ProxyIo): RelayOptions {
  const notice = (message: string) => io.stderr.write(`acp-terminal proxy: ${message}\n`);
  return {
    terminals: options.terminals,
    liveLines: options.liveLines,
    maxTerminals: options.maxTerminals,
    maxTotalTerminals: options.maxTotalTerminals,
    notice,
    host: (ask: ApprovalAsker) => {
      const host = new TerminalHost({
        ...(options.on === undefined ? {} : { on: options.on }),
        pty: options.pty,
        cwd: options.cwd,
        sandbox: hostSandbox(options.approval, options.cwd),
        authorize: editorApprovalPolicy(options.approval, ask),
        containment: options.containment,
        maxTerminalsPerSession: options.maxTerminals,
        maxTerminals: options.maxTotalTerminals,
      });
      if (options.verbose) {
        notice(`serving the agent's terminals; ${describeContainment(host.containment)}`);
        if (options.on !== undefined) {
          notice(`commands run on ${options.on}`);
        }
        notice(describeSandbox(host.sandbox));
      }
      return host;
    },
  };
}

/**
 * Reads `stream`'s lines into `take`, pausing it while the other side's port is full (that side is
 * slow to take what this one sends), so memory stays bounded by the pipes. Not while its own side
 * is full: an agent on Node blocks in its stdout writes and reads its stdin only between them, so
 * waiting for it to read would wait forever (what the proxy writes a side of its own is capped by
 * LineWriter instead).
 */
function feed(
  stream: Readable,
  take: (line: Buffer) => void,
  port: Port,
  tooLong: () => void,
  readAheadBytes = 0,
): LineReader {
  const reader: LineReader = new LineReader(
    stream,
    (line) => {
      take(line);
      if (port.full) {
        reader.pause();
        port.drained(() => reader.resume());
      }
    },
    tooLong,
    readAheadBytes,
  );
  return reader;
}

/**
 * The proxy between the editor (stdio) and the agent's process: lines flow both ways through the
 * relay, each reader paused while the other side's pipe is full. It ends when the agent exits
 * (after its last lines: the editor's pending requests get errors, and the status is the agent's)
 * or when the editor goes (stdin ends, or stdout breaks: the agent is ended, SIGTERM then SIGKILL);
 * either way every terminal is released first.
 */
async function relayToAgent(
  commandLine: string,
  options: ProxyOptions,
  io: ProxyIo,
): Promise<number> {
  const child = new AgentChild({
    commandLine,
    cwd: io.cwd,
    agentLogPath: options.agentLog,
    stderr: io.stderr,
  });
  let editorLeft!: () => void;
  const editorGone = new Promise<"editor">((resolve) => (editorLeft = () => resolve("editor")));
  const unread = (side: string) => () =>
    io.stderr.write(
      `acp-terminal proxy: the ${side} left ${MAX_UNREAD_BYTES} bytes unread: the proxy's own messages to it are dropped until it reads\n`,
    );
  const editorWriter = new LineWriter(
    editorOutput(io.stdout),
    () => editorLeft(),
    unread("editor"),
  );
  const editor = stdioPort(editorWriter);
  const agent = stdioPort(new LineWriter(child.stdin, () => undefined, unread("agent")));
  const relay = new Relay(editor, agent, relayOptions(options, io));
  const agentReader = feed(
    child.stdout,
    (line) => relay.fromAgent(line),
    editor,
    () => agent.send(TOO_LONG),
  );
  const editorReader = feed(
    io.stdin,
    (line) => relay.fromEditor(line),
    agent,
    () => editor.send(TOO_LONG),
    READ_AHEAD_BYTES, // so that the editor's end is seen while the agent reads nothing
  );
  void editorReader.ended.then(editorLeft);
  // An editor that stops its agent with a signal goes like one that closes stdin: without this the
  // proxy would die at once and leave an agent that does not read its stdin's end running.
  let endedBy: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    endedBy ??= signal;
    editorLeft();
  };
  for (const signal of EDITOR_SIGNALS) {
    process.on(signal, onSignal);
  }
  const first = await Promise.race([child.exited.then(() => "agent" as const), editorGone]);
  if (first === "agent") {
    await Promise.race([agentReader.ended, new Promise((r) => setTimeout(r, LAST_LINES_MS))]);
    const exit = child.exit!;
    relay.agentGone(howItExited(exit), { exitCode: exit.code, signal: exit.signal });
    editorReader.destroy();
  } else {
    relay.editorGone();
    editorReader.destroy();
  }
  await Promise.all([relay.close(), child.kill()]);
  agentReader.destroy();
  await editorWriter.flush();
  for (const signal of EDITOR_SIGNALS) {
    process.off(signal, onSignal);
  }
  if (endedBy !== undefined) {
    return 128 + constants.signals[endedBy];
  }
  return first === "agent" ? exitStatusOf(child.exit!) : 0;
}
