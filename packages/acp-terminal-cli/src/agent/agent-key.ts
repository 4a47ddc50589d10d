import path from "node:path";

/** Launchers whose first argument that is not an option names the agent. */
const LAUNCHERS = new Set(["npx", "bunx", "node", "bun", "deno", "uvx", "pipx", "exec", "env"]);

/**
 * What a run's agent is called in the state directory (its log, its typed history): the short
 * name when one was used (`claude`), else the program a command line runs, past launchers, options
 * and variable assignments (`npx -y @scope/my-agent@1.2 --acp` → `my-agent`, `node ./agent.mjs` →
 * `agent`).
 */
export function agentKey(commandLine: string, shortName: string | undefined): string {
  if (shortName !== undefined) {
    return shortName;
  }
  for (const quoted of commandLine.trim().split(/\s+/)) {
    const word = quoted.replace(/^['"]|['"]$/g, "");
    if (word.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
      continue;
    }
    const base = path.basename(word.replace(/(.)@[^/@]*$/, "$1"));
    if (LAUNCHERS.has(base)) {
      continue;
    }
    return base.replace(/\.(m?js|cjs|ts|py|sh)$/, "") || "agent";
  }
  return "agent";
}
