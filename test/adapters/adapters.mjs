// The two public ACP adapters as the recorder runs them: where they are installed (a cache outside
// the repository, filled with `npm install --prefix`), the stand-in model API each talks to, and the
// fresh HOME and configuration each run gets (see /work/shared/RUNNING-ADAPTERS.md).
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startAnthropicStandIn } from "./anthropic-stand-in.mjs";
import { startOpenAiStandIn } from "./openai-stand-in.mjs";

export const CACHE_DIR =
  process.env.ACP_ADAPTERS_CACHE ?? join(homedir(), ".cache", "acp-adapters");
const INSTALL_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * @typedef {{ keepBodies?: boolean, refuse?: boolean }} StandInOptions
 * @typedef {{ url: string, log: import("./http-stand-in.mjs").LoggedRequest[], close: () => Promise<void> }} StandIn
 * @typedef {{
 *   name: string, version: string, entry: string,
 *   startStandIn: (options?: StandInOptions) => Promise<StandIn>,
 *   prepare: (home: string, standInUrl: string) => Record<string, string>,
 *   breakNewSession: { how: string, apply: (env: Record<string, string>, home: string) => void },
 * }} Adapter
 */

/** @type {Record<"claude" | "codex", Adapter>} */
export const ADAPTERS = {
  claude: {
    name: "@agentclientprotocol/claude-agent-acp",
    version: "0.101.0",
    entry: "dist/index.js",
    startStandIn: startAnthropicStandIn,
    prepare(home, standInUrl) {
      const config = join(home, ".claude");
      mkdirSync(config, { recursive: true });
      // Without it the session starts in an automatic mode that asks a classifier model before
      // each command; "default" asks the client with session/request_permission.
      writeFileSync(
        join(config, "settings.json"),
        JSON.stringify({ permissions: { defaultMode: "default" } }),
      );
      return {
        CLAUDE_CONFIG_DIR: config,
        ANTHROPIC_BASE_URL: standInUrl,
        ANTHROPIC_API_KEY: "sk-ant-stand-in",
        DISABLE_TELEMETRY: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_ERROR_REPORTING: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        // Claude Code refuses to run as root without it; set always so that root and non-root
        // recordings are alike.
        IS_SANDBOX: "1",
      };
    },
    breakNewSession: {
      how:
        "CLAUDE_CODE_EXECUTABLE=/bin/true: Claude Code exits 0 before it answers the SDK's " +
        "initialize (one that exits non-zero gives 'Claude Code process exited with code N' instead)",
      apply(env) {
        env.CLAUDE_CODE_EXECUTABLE = "/bin/true";
      },
    },
  },
  codex: {
    name: "@agentclientprotocol/codex-acp",
    version: "2.6.0",
    entry: "dist/index.js",
    startStandIn: startOpenAiStandIn,
    prepare(home, standInUrl) {
      const codexHome = join(home, ".codex");
      mkdirSync(codexHome, { recursive: true });
      writeFileSync(join(codexHome, "config.toml"), codexConfig(standInUrl));
      return { CODEX_HOME: codexHome };
    },
    breakNewSession: {
      how: "no config.toml: the default OpenAI provider, and no login or OPENAI_API_KEY",
      apply(env) {
        rmSync(join(env.CODEX_HOME, "config.toml"));
      },
    },
  },
};

/** @param {string} standInUrl */
export function codexConfig(standInUrl) {
  return [
    'model = "gpt-5.1-codex"',
    'model_provider = "local"',
    "[model_providers.local]",
    'name = "Local"',
    `base_url = "${standInUrl}/v1"`,
    'wire_api = "responses"',
    "requires_openai_auth = false",
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "",
  ].join("\n");
}

/** @param {Adapter} adapter */
export function packageDir(adapter) {
  return join(CACHE_DIR, "node_modules", ...adapter.name.split("/"));
}

/** @param {Adapter} adapter */
function installedVersion(adapter) {
  const manifest = join(packageDir(adapter), "package.json");
  if (!existsSync(manifest)) {
    return undefined;
  }
  return JSON.parse(readFileSync(manifest, "utf8")).version;
}

/**
 * Installs the adapters (exact versions) into CACHE_DIR unless they are there already.
 * @param {Adapter[]} adapters
 * @param {(line: string) => void} say
 */
export async function installAdapters(adapters, say) {
  const missing = adapters.filter((adapter) => installedVersion(adapter) !== adapter.version);
  if (missing.length === 0) {
    return;
  }
  const specs = missing.map((adapter) => `${adapter.name}@${adapter.version}`);
  say(`installing ${specs.join(" ")} into ${CACHE_DIR} (npm install --prefix)`);
  mkdirSync(CACHE_DIR, { recursive: true });
  await promisify(execFile)(
    "npm",
    ["install", "--prefix", CACHE_DIR, "--no-audit", "--no-fund", "--save-exact", ...specs],
    { timeout: INSTALL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
  );
  for (const adapter of missing) {
    if (installedVersion(adapter) !== adapter.version) {
      throw new Error(
        `npm installed ${adapter.name} ${installedVersion(adapter) ?? "nothing"}, not ${adapter.version}: remove ${CACHE_DIR} and try again`,
      );
    }
  }
}
