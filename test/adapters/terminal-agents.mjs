// The public agents that run their shell through the client's `terminal/create`, as the recorder
// and cli-session run them: where they are installed (a cache outside the repository, filled with
// `npm install --prefix`), the command line that starts each over stdio, and the fresh HOME and
// configuration each run gets, every one pointed at the local Anthropic stand-in
// (shell-agent-stand-in.mjs). See /work/shared/RUNNING-ADAPTERS.md.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ADAPTERS } from "./adapters.mjs";

export const TERMINAL_AGENTS_CACHE =
  process.env.ACP_TERMINAL_AGENTS_CACHE ?? join(homedir(), ".cache", "terminal-agents");
const INSTALL_TIMEOUT_MS = 10 * 60 * 1000;
const BIN = join(TERMINAL_AGENTS_CACHE, "node_modules", ".bin");

/**
 * @typedef {{
 *   name: string,
 *   packages: Array<{ name: string, version: string }>,
 *   command: () => string,
 *   prepare: (home: string, standInUrl: string) => Record<string, string>,
 * }} TerminalAgent
 */

/** @type {Record<"claude-code-acp" | "omp" | "droid", TerminalAgent>} */
export const TERMINAL_AGENTS = {
  // Claude Code 2.1.44 inside; its shell tool is `mcp__acp__Bash` when the client has terminals.
  "claude-code-acp": {
    name: "@zed-industries/claude-code-acp",
    packages: [{ name: "@zed-industries/claude-code-acp", version: "0.16.2" }],
    command: () =>
      `node ${join(TERMINAL_AGENTS_CACHE, "node_modules/@zed-industries/claude-code-acp/dist/index.js")}`,
    // As claude-agent-acp's: the same Claude Code, configured the same way.
    prepare: (home, standInUrl) => ADAPTERS.claude.prepare(home, standInUrl),
  },
  // Runs on Bun (the npm package `bun`); `omp acp` speaks ACP on stdio.
  omp: {
    name: "@oh-my-pi/pi-coding-agent",
    packages: [
      { name: "@oh-my-pi/pi-coding-agent", version: "18.2.3" },
      { name: "bun", version: "1.4.5" },
    ],
    command: () =>
      `${join(BIN, "bun")} ${join(TERMINAL_AGENTS_CACHE, "node_modules/@oh-my-pi/pi-coding-agent/dist/cli.js")} acp`,
    prepare(_home, standInUrl) {
      return { ANTHROPIC_BASE_URL: standInUrl, ANTHROPIC_API_KEY: "sk-ant-stand-in" };
    },
  },
  // Factory's CLI. Its service (FACTORY_API_BASE_URL) is the stand-in too, which answers its API
  // paths with `200 {}`; the model is a built-in Anthropic one, which droid reaches through that
  // service at /api/llm/a/v1/messages. (A bring-your-own-key model in settings.json was
  // nondeterministic with this version: some runs fell back to the default OpenAI model.)
  droid: {
    name: "droid",
    packages: [{ name: "droid", version: "0.215.0" }],
    command: () => `${join(BIN, "droid")} exec --output-format acp`,
    prepare(home, standInUrl) {
      const config = join(home, ".factory");
      mkdirSync(config, { recursive: true });
      writeFileSync(
        join(config, "settings.json"),
        JSON.stringify({ model: "claude-sonnet-4-5-20250929" }),
      );
      return { FACTORY_API_KEY: "fk-stand-in", FACTORY_API_BASE_URL: standInUrl };
    },
  },
};

/** @param {{ name: string }} pkg */
function installedVersion(pkg) {
  const manifest = join(
    TERMINAL_AGENTS_CACHE,
    "node_modules",
    ...pkg.name.split("/"),
    "package.json",
  );
  return existsSync(manifest) ? JSON.parse(readFileSync(manifest, "utf8")).version : undefined;
}

/**
 * Installs the agents' packages (exact versions, install scripts off: droid and bun then run
 * through their JavaScript launchers) into the cache unless they are there already.
 * @param {TerminalAgent[]} agents
 * @param {(line: string) => void} say
 */
export async function installTerminalAgents(agents, say) {
  const missing = agents
    .flatMap((agent) => agent.packages)
    .filter((pkg) => installedVersion(pkg) !== pkg.version);
  if (missing.length === 0) {
    return;
  }
  const specs = missing.map((pkg) => `${pkg.name}@${pkg.version}`);
  say(`installing ${specs.join(" ")} into ${TERMINAL_AGENTS_CACHE} (npm install --prefix)`);
  mkdirSync(TERMINAL_AGENTS_CACHE, { recursive: true });
  await promisify(execFile)(
    "npm",
    [
      "install",
      "--prefix",
      TERMINAL_AGENTS_CACHE,
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--save-exact",
      ...specs,
    ],
    { timeout: INSTALL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
  );
  for (const pkg of missing) {
    if (installedVersion(pkg) !== pkg.version) {
      throw new Error(
        `npm installed ${pkg.name} ${installedVersion(pkg) ?? "nothing"}, not ${pkg.version}: remove ${TERMINAL_AGENTS_CACHE} and try again`,
      );
    }
  }
}
