#!/usr/bin/env node
// Records Claude Code (the real one, from npm, unmodified) using `acp-terminal mcp` as its stdio
// MCP server, headless (`claude -p`), against the scripted Messages API stand-in of
// claude-mcp-stand-in.mjs. The stdio tap between Claude Code and the server writes every MCP
// message both ways; Claude Code's own stream-json output and the stand-in's request log are kept
// beside it.
//
//   node test/adapters/record-claude-mcp.mjs [--prompt "mcp scenario"] [--name NAME] [--keep]
//
// With --name the sanitized recording goes to test/fixtures/claude-code-mcp/NAME.{wire,stream}.jsonl
// and NAME.json (what the run was); without it only the summary is printed (e.g. to count the
// model turns of `--prompt "ticker 90"`). The Elicitation hook is the README's (the snippet
// `claude-code-hook`), approving the ticker's command line; nothing else is approved by anyone.
//
// Claude Code: CLAUDE_CODE_BIN, else ~/.cache/claude-code-2.1.332 (install it there with
// `npm install --prefix ~/.cache/claude-code-2.1.332 @anthropic-ai/claude-code@2.1.332`).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { SEQ_COMMAND, startClaudeMcpStandIn, tickerCommand } from "./claude-mcp-stand-in.mjs";
import { replacements, sanitizedRecord } from "./sanitize.mjs";

const CLAUDE_CODE_VERSION = "2.1.332";
const CACHE_DIR = join(homedir(), ".cache", `claude-code-${CLAUDE_CODE_VERSION}`);
const BIN =
  process.env.CLAUDE_CODE_BIN ??
  join(CACHE_DIR, "node_modules/@anthropic-ai/claude-code-linux-x64/claude");
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SERVER = join(ROOT, "packages/acp-terminal-mcp/dist/main.js");
const TAP = fileURLToPath(new URL("./tap.mjs", import.meta.url));
const FIXTURES = join(ROOT, "test/fixtures/claude-code-mcp");
const RUN_TIMEOUT_MS = 300_000;

const { values: args } = parseArgs({
  options: {
    prompt: { type: "string", default: "mcp scenario" },
    name: { type: "string" },
    keep: { type: "boolean", default: false },
    // Leave ENABLE_TOOL_SEARCH out of the environment: only the README's settings set it.
    "settings-only": { type: "boolean", default: false },
  },
});

/** The fenced block after `<!-- mcp-snippet: NAME -->` in the MCP README. */
export function readmeSnippet(/** @type {string} */ name) {
  const readme = readFileSync(join(ROOT, "packages/acp-terminal-mcp/README.md"), "utf8");
  const match = new RegExp(
    `<!-- mcp-snippet: ${name} -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\\n\`\`\``,
  ).exec(readme);
  if (!match) {
    throw new Error(`the MCP README has no snippet ${name}`);
  }
  return match[1];
}

const runDir = mkdtempSync(join(tmpdir(), "claude-mcp-"));
const home = join(runDir, "home");
const project = join(runDir, "project");
const config = join(home, ".claude");
mkdirSync(config, { recursive: true });
mkdirSync(project);
const hook = join(runDir, "approve-listed.mjs");
writeFileSync(hook, readmeSnippet("claude-code-hook"));
const approved = join(runDir, "approved.txt");
const tickerSeconds = Number(/ticker (\d+)/.exec(args.prompt)?.[1] ?? 12);
writeFileSync(approved, `${tickerCommand(12)}\n${tickerCommand(tickerSeconds)}\n`);
const settings = JSON.parse(
  readmeSnippet("claude-code-settings").replaceAll("/path/to/approve-listed.mjs", hook),
);
writeFileSync(
  join(config, "settings.json"),
  JSON.stringify({
    ...settings,
    permissions: {
      defaultMode: "default",
      allow: ["mcp__terminals__exec", "mcp__terminals__process"],
    },
  }),
);
const serverArgs = ["--workspace", project, "--allow", "seq *"];
const mcpConfig = join(runDir, "mcp.json");
writeFileSync(
  mcpConfig,
  JSON.stringify({
    mcpServers: {
      terminals: {
        command: process.execPath,
        args: [
          TAP,
          "--out",
          join(runDir, "wire.jsonl"),
          "--stderr",
          join(runDir, "server-stderr.txt"),
          "--",
          process.execPath,
          SERVER,
          ...serverArgs,
        ],
      },
    },
  }),
);

const standIn = await startClaudeMcpStandIn();
const env = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: home,
  CLAUDE_CONFIG_DIR: config,
  ANTHROPIC_BASE_URL: standIn.url,
  ANTHROPIC_API_KEY: "sk-ant-standin",
  IS_SANDBOX: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_ERROR_REPORTING: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  ...(args["settings-only"] ? {} : { ENABLE_TOOL_SEARCH: "false" }),
  TERMINALS_APPROVED: approved,
};
const started = Date.now();
const claude = spawn(
  BIN,
  ["-p", args.prompt, "--mcp-config", mcpConfig, "--output-format", "stream-json", "--verbose"],
  { cwd: project, env, stdio: ["ignore", "pipe", "pipe"] },
);
const stream = [];
claude.stdout.setEncoding("utf8").on("data", (chunk) => stream.push(chunk));
const stderr = [];
claude.stderr.setEncoding("utf8").on("data", (chunk) => stderr.push(chunk));
const timer = setTimeout(() => claude.kill("SIGKILL"), RUN_TIMEOUT_MS);
const [code, signal] = await once(claude, "exit");
clearTimeout(timer);
await standIn.close();
writeFileSync(join(runDir, "stream.jsonl"), stream.join(""));

const messages = standIn.log.filter((entry) => /^\/v1\/messages(\?|$)/.test(entry.path));
const summary = {
  claudeCode: CLAUDE_CODE_VERSION,
  prompt: args.prompt,
  serverArgs,
  exit: { code, signal },
  seconds: Math.round((Date.now() - started) / 100) / 10,
  modelRequests: messages.length,
  mainTurns: messages.filter((entry) => entry.answer.startsWith("main")).length,
  turns: messages.map((entry) => entry.answer.slice(0, 300)),
};
process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
if (code !== 0) {
  process.stdout.write(`claude stderr:\n${stderr.join("").slice(-4000)}\n`);
}
printSeqAnswer(join(runDir, "wire.jsonl"));

if (args.name !== undefined) {
  mkdirSync(FIXTURES, { recursive: true });
  const pairs = [...replacements({ runDir, cacheDir: CACHE_DIR, standInUrl: standIn.url })];
  pairs.push([process.execPath, "/usr/bin/node"]);
  for (const part of ["wire", "stream"]) {
    writeFileSync(
      join(FIXTURES, `${args.name}.${part}.jsonl`),
      sanitizedRecord(join(runDir, `${part}.jsonl`), pairs),
    );
  }
  writeFileSync(
    join(FIXTURES, `${args.name}.json`),
    `${JSON.stringify({ ...summary, recorded: new Date().toISOString().slice(0, 10) }, null, 2)
      .split(runDir)
      .join("/tmp/acp-recording")}\n`,
  );
}
if (args.keep) {
  process.stdout.write(`kept ${runDir}\n`);
} else {
  rmSync(runDir, { recursive: true, force: true });
}

/** The first and last 3 lines of the `seq 1 7000000` answer the server gave, and the lines around its marker. */
function printSeqAnswer(/** @type {string} */ wire) {
  let requestId;
  for (const line of readFileSync(wire, "utf8").split("\n").filter(Boolean)) {
    const msg = JSON.parse(line).msg;
    if (msg?.method === "tools/call" && msg.params?.arguments?.command === SEQ_COMMAND) {
      requestId = msg.id;
    } else if (requestId !== undefined && msg?.id === requestId && msg.result?.structuredContent) {
      /** @type {string[]} */
      const lines = String(msg.result.structuredContent.output).trimEnd().split("\n");
      const at = lines.findIndex((text) => text.startsWith("[... "));
      const show = (/** @type {string[]} */ some) => JSON.stringify(some);
      process.stdout.write(
        `seq answer: ${lines.length} lines, first 3 ${show(lines.slice(0, 3))}, last 3 ${show(lines.slice(-3))}\n` +
          `  around the marker: ${show(lines.slice(Math.max(0, at - 1), at + 2))}\n`,
      );
    }
  }
}
