import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { errnoCodeOf, messageOf } from "acp-terminal/internal";

/** An agent whose npm package and version acp-terminal was tested with (recordings, README). */
export interface PinnedAgent {
  package: string;
  version: string;
  /** The lowest Node major its package declares (`engines.node`), when it declares one. */
  nodeMajor?: number;
  /** Why this agent runs with `--no-fs` (the client's fs not offered), when it must. */
  noFs?: string;
}

/**
 * Launch commands of well-known ACP agents. The three acp-terminal is tested with run the exact
 * npm version tested (`npx -y pkg@version`): without a version, npx picks the newest one that
 * installs on the running Node, which is not the one tested (on Node 20, claude-agent-acp 0.49,
 * which speaks only ACP v1). The others run as their projects document them (their own `acp`
 * modes), untested here.
 */
const KNOWN_AGENTS: Readonly<Record<string, { command: string; pinned?: PinnedAgent }>> = {
  claude: pinned("@agentclientprotocol/claude-agent-acp", "0.101.0", "", 22),
  codex: pinned("@agentclientprotocol/codex-acp", "2.6.0", ""),
  gemini: pinned(
    "@google/gemini-cli",
    "0.61.0",
    " --acp",
    20,
    // Its AcpFileSystemService reads a not-found error only from an Error's message, and the SDK
    // rejects with the JSON-RPC error object: every new file fails ("Error checking existing file").
    "it cannot create a new file through the client's fs (it takes the not-found answer for a failure)",
  ),
  qwen: { command: "qwen --acp" },
  opencode: { command: "npx -y opencode-ai acp" },
  goose: { command: "goose acp" },
  kimi: { command: "kimi acp" },
  cursor: { command: "cursor-agent acp" },
  copilot: { command: "copilot --acp --stdio" },
  pi: { command: "npx -y pi-acp" },
};

function pinned(
  name: string,
  version: string,
  args: string,
  nodeMajor?: number,
  noFs?: string,
): { command: string; pinned: PinnedAgent } {
  return {
    command: `npx -y ${name}@${version}${args}`,
    pinned: {
      package: name,
      version,
      ...(nodeMajor === undefined ? {} : { nodeMajor }),
      ...(noFs === undefined ? {} : { noFs }),
    },
  };
}

export const KNOWN_AGENT_NAMES = Object.keys(KNOWN_AGENTS);

/**
 * What to say before a pinned agent starts: which package and version runs; when its package
 * declares a newer Node than the one running, that it may fail here and what to do; and that it
 * runs with `--no-fs`, and why, when it must.
 */
export function pinnedAgentLines(
  name: string,
  agent: PinnedAgent,
  nodeVersion: string = process.versions.node,
): string[] {
  const lines = [
    `acp-terminal: ${name} is ${agent.package} ${agent.version} (the version tested; npx downloads it on first use)`,
  ];
  const running = Number(nodeVersion.split(".")[0]);
  if (agent.nodeMajor !== undefined && running < agent.nodeMajor) {
    lines.push(
      `acp-terminal: ${agent.package} ${agent.version} declares Node >= ${agent.nodeMajor}; this is Node ${nodeVersion}: if it fails to start, run acp-terminal with Node ${agent.nodeMajor} or later, or name another command for "${name}" in agents.json`,
    );
  }
  if (agent.noFs !== undefined) {
    lines.push(
      `acp-terminal: ${name} runs with --no-fs: ${agent.noFs}; it reads and writes files itself, after asking (name another command for "${name}" in agents.json to offer the client's fs)`,
    );
  }
  return lines;
}

/** Bytes of agents.json read at most. */
const MAX_CONFIG_BYTES = 64 * 1024;
/** A name is one word: anything with a space or a slash is a command line or a path. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Where the user's short names live: $ACP_TERMINAL_AGENTS, else $XDG_CONFIG_HOME or ~/.config. */
export function agentsConfigPath(env: NodeJS.ProcessEnv): string {
  const given = env["ACP_TERMINAL_AGENTS"];
  if (given !== undefined && given !== "") {
    return given;
  }
  const base = env["XDG_CONFIG_HOME"] || path.join(homedir(), ".config");
  return path.join(base, "acp-terminal", "agents.json");
}

export type AgentLookup =
  | { commandLine: string; name?: string; from?: "built-in" | string; pinned?: PinnedAgent }
  | { error: string };

/**
 * `--agent` as a command line: a known name (one word, no path) becomes its launch command, the
 * user's agents.json (`{"agents": {"claude": "my-claude-acp --flag"}}`) first, then the built-in
 * table; anything else is a command line already. A config that cannot be read as that shape is
 * an error naming the file (a missing one is not).
 */
export function resolveAgent(agent: string, env: NodeJS.ProcessEnv): AgentLookup {
  const word = agent.trim();
  if (!NAME.test(word)) {
    return { commandLine: agent };
  }
  const file = agentsConfigPath(env);
  const config = readConfig(file);
  if ("error" in config) {
    return config;
  }
  const mine = Object.hasOwn(config.agents, word) ? config.agents[word] : undefined;
  if (mine !== undefined) {
    return { commandLine: mine, name: word, from: file };
  }
  const known = Object.hasOwn(KNOWN_AGENTS, word) ? KNOWN_AGENTS[word] : undefined;
  if (known === undefined) {
    return { commandLine: agent };
  }
  return {
    commandLine: known.command,
    name: word,
    from: "built-in",
    ...(known.pinned === undefined ? {} : { pinned: known.pinned }),
  };
}

function readConfig(file: string): { agents: Record<string, string> } | { error: string } {
  let text: string;
  try {
    const bytes = readFileSync(file);
    if (bytes.byteLength > MAX_CONFIG_BYTES) {
      return { error: `Invalid ${file}: ${bytes.byteLength} bytes, more than ${MAX_CONFIG_BYTES}` };
    }
    text = bytes.toString("utf8");
  } catch (error) {
    return errnoCodeOf(error) === "ENOENT"
      ? { agents: {} }
      : { error: `Cannot read ${file}: ${messageOf(error)}` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { error: `Invalid ${file}: not JSON (${messageOf(error)})` };
  }
  const agents: unknown = Reflect.get(Object(parsed), "agents");
  const expected = `expected {"agents": {"name": "command line", …}}`;
  if (typeof agents !== "object" || agents === null || Array.isArray(agents)) {
    return { error: `Invalid ${file}: ${expected}` };
  }
  const checked: Record<string, string> = {};
  for (const [name, command] of Object.entries(agents)) {
    if (!NAME.test(name) || typeof command !== "string" || command.trim() === "") {
      return { error: `Invalid ${file}: ${JSON.stringify(name.slice(0, 64))}: ${expected}` };
    }
    checked[name] = command;
  }
  return { agents: checked };
}
