import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { errnoCodeOf, messageOf } from "acp-terminal/internal";

/**
 * Launch commands of well-known ACP agents, as their projects document them (the two adapters by
 * their current npm names, the others' own `acp` modes). `--agent claude` runs the first.
 */
const KNOWN_AGENTS: Readonly<Record<string, string>> = {
  claude: "npx -y @agentclientprotocol/claude-agent-acp",
  codex: "npx -y @agentclientprotocol/codex-acp",
  gemini: "gemini --acp",
  qwen: "qwen --acp",
  opencode: "npx -y opencode-ai acp",
  goose: "goose acp",
  kimi: "kimi acp",
  cursor: "cursor-agent acp",
  copilot: "copilot --acp --stdio",
  pi: "npx -y pi-acp",
};

export const KNOWN_AGENT_NAMES = Object.keys(KNOWN_AGENTS);

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
  { commandLine: string; name?: string; from?: "built-in" | string } | { error: string };

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
  return known === undefined
    ? { commandLine: agent }
    : { commandLine: known, name: word, from: "built-in" };
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
