import path from "node:path";
import { parseArgs } from "node:util";
import { setTimeout as delay } from "node:timers/promises";
import type { SessionInfo } from "@agentclientprotocol/sdk";
import { messageOf } from "acp-terminal/internal";
import { defaultAgentLog } from "../agent/agent-log.js";
import { agentKey } from "../agent/agent-key.js";
import { AgentProcess } from "../agent/agent-process.js";
import { agentExited, initTimedOut, type Ending } from "../agent/failure-messages.js";
import { resolveAgent } from "../agent/known-agents.js";
import { DEFAULT_INIT_TIMEOUT_MS } from "../command/args.js";
import { parseSeconds } from "../command/seconds.js";
import { ExitCode } from "../exit-codes.js";
import { listSessions, type Listed } from "./list-sessions.js";
import { SessionNames } from "./session-names.js";

export const SESSIONS_USAGE = `Usage:
  acp-terminal sessions [list] --agent <name or command line> [--cwd DIR | --all] [--json]
  acp-terminal sessions show ID|NAME --agent <name or command line> [--cwd DIR] [--json]

Lists the agent's sessions through ACP's session/list (the agent must offer it), those of the
directory (--cwd, default: the current one) or all (--all), newest first as the agent gives them,
with the names given to them by acp-terminal run --name. "show" prints one session, by id or name,
and how to resume it.

Options:
  --agent CMD        the agent, as for acp-terminal run
  --cwd DIR          the sessions' directory (default: the current directory)
  --all              sessions of every directory
  --json             one JSON object per session on stdout
  --init-timeout S   how long the agent may take to answer initialize (default 10)
  --agent-log FILE   append the agent's stderr to FILE (default: its log in ~/.local/state)
  --agent-stderr     show the agent's stderr here
`;

/** How long the agent gets to answer `session/list` (all pages). */
const LIST_TIMEOUT_MS = 30_000;
/** Characters of a title shown on a list line. */
const MAX_TITLE_CHARS = 80;

export interface SessionsIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  cwd: string;
  env: NodeJS.ProcessEnv;
  version: string;
}

/** `acp-terminal sessions [list|show ID]`: resolves with the exit code; never throws. */
export async function runSessionsCommand(argv: string[], io: SessionsIo): Promise<number> {
  const request = parseSessionsCommand(argv, io);
  if ("usage" in request) {
    io.stderr.write(`${request.usage}\nRun "acp-terminal sessions --help" for usage.\n`);
    return ExitCode.usage;
  }
  if ("help" in request) {
    io.stdout.write(SESSIONS_USAGE);
    return ExitCode.ok;
  }
  const { cwd, key } = request;
  const listed = await listFromAgent(request.commandLine, io, {
    cwd,
    initTimeoutMs: request.initTimeoutMs,
    agentLog: request.agentLog,
  });
  if ("exitCode" in listed) {
    io.stderr.write(`${listed.error ?? "session/list failed"}\n`);
    return listed.exitCode;
  }
  const names = new SessionNames(io.env);
  const nameOf = new Map(
    names
      .list(key, undefined)
      .flatMap((s) => (s.name === undefined ? [] : [[s.sessionId, s.name]])),
  );
  if (request.action === "show") {
    const byName = cwd === undefined ? undefined : names.find(key, cwd, request.wanted);
    return showSession(request, listed, byName?.sessionId ?? request.wanted, nameOf, io);
  }
  if (request.json) {
    io.stdout.write(listed.sessions.map((s) => `${JSON.stringify(jsonOf(s, nameOf))}\n`).join(""));
  } else {
    io.stderr.write(`${headerLine(listed, cwd)}\n`);
    io.stdout.write(
      listed.sessions.map((s) => `${listLine(s, nameOf.get(s.sessionId))}\n`).join(""),
    );
  }
  if (listed.cut) {
    io.stderr.write(
      `acp-terminal: the agent has more sessions than listed (at most ${listed.sessions.length} are read)\n`,
    );
  }
  return ExitCode.ok;
}

/** What `sessions` was asked: list, or show one session (by id or name). */
type SessionsRequest = {
  agent: string;
  commandLine: string;
  key: string;
  /** Undefined under --all. */
  cwd: string | undefined;
  json: boolean;
  initTimeoutMs: number;
  agentLog: string | undefined;
} & ({ action: "list" } | { action: "show"; wanted: string });

/** Reads argv; a usage problem comes back as a value. */
function parseSessionsCommand(
  argv: string[],
  io: SessionsIo,
): SessionsRequest | { help: true } | { usage: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        agent: { type: "string" },
        cwd: { type: "string" },
        all: { type: "boolean", default: false },
        json: { type: "boolean", default: false },
        "init-timeout": { type: "string" },
        "agent-log": { type: "string" },
        "agent-stderr": { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    return { usage: messageOf(error) };
  }
  const { values, positionals } = parsed;
  if (values.help) {
    return { help: true };
  }
  const [action = "list", wanted, ...extra] = positionals;
  if ((action !== "list" && action !== "show") || extra.length > 0) {
    return {
      usage: `Unknown sessions command: ${positionals.join(" ")} (expected list or show ID)`,
    };
  }
  if (action === "show" && wanted === undefined) {
    return { usage: "sessions show: give the session's id or name" };
  }
  if (action === "list" && wanted !== undefined) {
    return { usage: `sessions list takes no argument, received ${JSON.stringify(wanted)}` };
  }
  if (values.agent === undefined || values.agent.trim() === "") {
    return { usage: "Missing --agent: give the agent's name or command line, e.g. --agent claude" };
  }
  if (values.all && values.cwd !== undefined) {
    return { usage: "--all and --cwd exclude each other: give one" };
  }
  const initTimeoutMs =
    parseSeconds("--init-timeout", values["init-timeout"]) ?? DEFAULT_INIT_TIMEOUT_MS;
  if (typeof initTimeoutMs === "string") {
    return { usage: initTimeoutMs };
  }
  const resolved = resolveAgent(values.agent, io.env);
  if ("error" in resolved) {
    return { usage: resolved.error };
  }
  const key = agentKey(resolved.commandLine, resolved.name);
  return {
    ...(action === "show" ? { action, wanted: wanted! } : { action: "list" as const }),
    agent: values.agent,
    commandLine: resolved.commandLine,
    key,
    cwd: values.all ? undefined : path.resolve(io.cwd, values.cwd ?? "."),
    json: values.json,
    initTimeoutMs,
    agentLog: values["agent-stderr"]
      ? undefined
      : (values["agent-log"] ?? logPath(defaultAgentLog(io.env, key))),
  };
}

/** `sessions show`: the session `id` among those listed, or an error naming what was asked. */
function showSession(
  request: SessionsRequest & { action: "show" },
  listed: { sessions: SessionInfo[] },
  id: string,
  nameOf: Map<string, string>,
  io: SessionsIo,
): number {
  const session = listed.sessions.find((s) => s.sessionId === id);
  if (session === undefined) {
    io.stderr.write(
      `No session ${JSON.stringify(request.wanted)} among the agent's ${listed.sessions.length} sessions${request.cwd === undefined ? "" : ` in ${request.cwd}`} (acp-terminal sessions list shows them)\n`,
    );
    return ExitCode.usage;
  }
  io.stdout.write(
    request.json
      ? `${JSON.stringify(jsonOf(session, nameOf))}\n`
      : showLines(session, nameOf.get(session.sessionId), request.agent),
  );
  return ExitCode.ok;
}

function logPath(log: { path: string } | { error: string }): string | undefined {
  return "path" in log ? log.path : undefined;
}

/** Starts the agent, lists its sessions, and stops it whatever happened. */
async function listFromAgent(
  commandLine: string,
  io: SessionsIo,
  options: { cwd: string | undefined; initTimeoutMs: number; agentLog: string | undefined },
): Promise<Listed | Ending> {
  const agent = new AgentProcess({
    commandLine,
    cwd: io.cwd,
    agentLogPath: options.agentLog,
    stderr: io.stderr,
  });
  const stop = new AbortController();
  try {
    const exited = agent.exited.then((exit) =>
      agentExited(
        exit,
        "before it listed its sessions",
        commandLine,
        options.agentLog,
        agent.lastStderrLine,
      ),
    );
    const timedOut = delay(options.initTimeoutMs + LIST_TIMEOUT_MS, undefined, {
      signal: stop.signal,
    }).then(() => initTimedOut(commandLine, options.initTimeoutMs));
    return await Promise.race([
      listSessions(agent.stream, { agent: commandLine, version: io.version, cwd: options.cwd }),
      exited,
      timedOut,
    ]);
  } finally {
    stop.abort();
    await agent.kill().catch(() => undefined);
  }
}

/** What the agent says, on one line: control characters out, bounded. */
function plain(value: unknown, max: number): string {
  const text = typeof value === "string" ? value.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ") : "";
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function headerLine(listed: Listed, cwd: string | undefined): string {
  const info: object = Object(listed.agentInfo);
  const agent = [plain(Reflect.get(info, "name"), 100), plain(Reflect.get(info, "version"), 40)]
    .filter(Boolean)
    .join(" ");
  const count = `${listed.sessions.length} session${listed.sessions.length === 1 ? "" : "s"}`;
  return `acp-terminal: ${agent || "the agent"} · ${count} ${cwd === undefined ? "in every directory" : `in ${cwd}`}`;
}

/** `<id>  <updated>  [name]  <title>` */
function listLine(session: SessionInfo, name: string | undefined): string {
  const updated = plain(session.updatedAt ?? "", 40)
    .replace("T", " ")
    .replace(/:\d\d(\.\d+)?Z$/, "Z");
  return [
    plain(session.sessionId, 200),
    updated || "-",
    ...(name === undefined ? [] : [`[${name}]`]),
    plain(session.title ?? "", MAX_TITLE_CHARS),
  ]
    .join("  ")
    .trimEnd();
}

function showLines(session: SessionInfo, name: string | undefined, agent: string): string {
  const quoted = /^[\w./@:-]+$/.test(agent) ? agent : `'${agent.replaceAll("'", "'\\''")}'`;
  const lines = [
    ["session", plain(session.sessionId, 200)],
    ...(name === undefined ? [] : [["name", name]]),
    ["title", plain(session.title ?? "", 1000)],
    ["cwd", plain(session.cwd, 4096)],
    ["updated", plain(session.updatedAt ?? "", 40)],
    [
      "resume",
      `acp-terminal run --agent ${quoted} --cwd ${plain(session.cwd, 4096)} ${name === undefined ? `--session ${plain(session.sessionId, 200)}` : `--name ${name}`}`,
    ],
  ];
  return lines.map(([key, value]) => `${key!.padEnd(8)} ${value}\n`).join("");
}

function jsonOf(session: SessionInfo, names: Map<string, string>) {
  const name = names.get(session.sessionId);
  return {
    type: "session",
    sessionId: session.sessionId,
    cwd: session.cwd,
    title: session.title ?? null,
    updatedAt: session.updatedAt ?? null,
    ...(name === undefined ? {} : { name }),
  };
}
