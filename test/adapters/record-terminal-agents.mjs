#!/usr/bin/env node
// Records real sessions of the public agents that call `terminal/create` (terminal-agents.mjs:
// claude-code-acp, omp, droid; unmodified, installed from the npm registry into a cache outside the
// repository) with the acp-terminal CLI as their client, against the local Anthropic stand-in
// (shell-agent-stand-in.mjs), into test/fixtures/terminal-agents/<agent>-<scenario>.jsonl.
//
//   node test/adapters/record-terminal-agents.mjs [--agent NAME] [--scenario NAME] [--keep]
//                                                 [--out DIR] [--cli PATH]
//
// The tap (tap.mjs) sits between the CLI and the agent and notes every message both ways, whole. The
// client's `terminal/output` answers can be a megabyte each (droid polls every ~53 ms with a 1 MiB
// limit): in the fixture, any string over CUT_CHARS keeps its first and last KEEP_CHARS with a
// marker between (`…[N characters cut by the recorder]…`); the replay needs their shape, not their
// text. See test/fixtures/terminal-agents/README.md.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { markedProcesses, prepareRun } from "./run-adapter.mjs";
import { replacements, sanitizedRecord } from "./sanitize.mjs";
import { RUN_PREFIX, startShellAgentStandIn } from "./shell-agent-stand-in.mjs";
import {
  installTerminalAgents,
  TERMINAL_AGENTS,
  TERMINAL_AGENTS_CACHE,
} from "./terminal-agents.mjs";

const RUN_TIMEOUT_MS = 240_000;
const CUT_CHARS = 4096;
const KEEP_CHARS = 512;
const TAP = fileURLToPath(new URL("./tap.mjs", import.meta.url));
/** Every message whole, however long (answers of megabytes), before the long strings are cut. */
const MAX_TAPPED_LINE = 64 * 1024 * 1024;

/**
 * @typedef {{
 *   name: string, about: string, command: string, flags: string[],
 *   agents?: string[], cancelAfterCreate?: boolean,
 * }} Scenario
 */

/** @type {Scenario[]} */
export const SCENARIOS = [
  {
    name: "seq",
    about: "200000 short lines (1288895 bytes), over v1 client terminals",
    command: "seq 1 200000",
    flags: ["--protocol", "v1"],
  },
  {
    name: "line",
    about: "one line of 100 MB, over v1 client terminals",
    command: "head -c 100000000 /dev/zero | tr '\\0' x",
    flags: ["--protocol", "v1"],
  },
  {
    name: "cancel",
    about: "sleep 30, cancelled (SIGINT to the CLI) once its terminal exists",
    command: "sleep 30",
    flags: ["--protocol", "v1"],
    cancelAfterCreate: true,
  },
  {
    name: "auto",
    about: "seq 1 200000 with the default protocol: the v2 offer, then whatever the CLI does next",
    command: "seq 1 200000",
    flags: [],
    agents: ["droid"],
  },
];

const { values: args } = parseArgs({
  options: {
    agent: { type: "string" },
    scenario: { type: "string" },
    keep: { type: "boolean", default: false },
    out: {
      type: "string",
      default: fileURLToPath(new URL("../fixtures/terminal-agents/", import.meta.url)),
    },
    cli: {
      type: "string",
      default: fileURLToPath(
        new URL("../../packages/acp-terminal-cli/dist/main.js", import.meta.url),
      ),
    },
  },
});
/** @param {string} line */
const say = (line) => process.stdout.write(`${line}\n`);

const agentNames = args.agent === undefined ? Object.keys(TERMINAL_AGENTS) : [args.agent];
for (const name of agentNames) {
  if (!(name in TERMINAL_AGENTS)) {
    throw new Error(`unknown agent ${name}: use ${Object.keys(TERMINAL_AGENTS).join(", ")}`);
  }
}
const agents = agentNames.map((name) => ({
  name,
  agent: TERMINAL_AGENTS[/** @type {keyof typeof TERMINAL_AGENTS} */ (name)],
}));
await installTerminalAgents(
  agents.map(({ agent }) => agent),
  say,
);
mkdirSync(args.out, { recursive: true });

let failures = 0;
for (const { name, agent } of agents) {
  for (const scenario of SCENARIOS) {
    if (args.scenario !== undefined && scenario.name !== args.scenario) {
      continue;
    }
    if (scenario.agents !== undefined && !scenario.agents.includes(name)) {
      continue;
    }
    try {
      await recordOne(name, agent, scenario);
    } catch (error) {
      failures += 1;
      say(`  FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }
}
process.exitCode = failures === 0 ? 0 : 1;

/**
 * @param {string} name
 * @param {import("./terminal-agents.mjs").TerminalAgent} agent
 * @param {Scenario} scenario
 */
async function recordOne(name, agent, scenario) {
  const fixture = join(args.out, `${name}-${scenario.name}.jsonl`);
  say(`${name} × ${scenario.name}: ${scenario.about}`);
  const started = Date.now();
  const {
    runDir,
    home,
    project,
    mark,
    env: base,
  } = prepareRun(join(TERMINAL_AGENTS_CACHE, "runs"), `${name}-`);
  const standIn = await startShellAgentStandIn();
  const record = join(runDir, "record.jsonl");
  /** @type {Record<string, string>} */
  const env = {
    ...base,
    // The CLI remembers per agent command which protocol it speaks: a fresh place per run.
    XDG_CACHE_HOME: join(home, ".cache"),
    ...agent.prepare(home, standIn.url),
  };
  const tapped = `node ${TAP} --out ${record} --stderr ${join(runDir, "agent.stderr")} --max-line ${MAX_TAPPED_LINE} -- ${agent.command()}`;
  const cli = spawn(
    process.execPath,
    [
      args.cli,
      "run",
      "--yes",
      ...scenario.flags,
      "--agent",
      tapped,
      `${RUN_PREFIX}${scenario.command}`,
    ],
    { cwd: project, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  cli.stdout.setEncoding("utf8").on("data", (chunk) => (stdout += chunk));
  cli.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
  const deadline = setTimeout(() => cli.kill("SIGKILL"), RUN_TIMEOUT_MS);
  const watcher = scenario.cancelAfterCreate
    ? setInterval(() => {
        if (existsSync(record) && readFileSync(record, "utf8").includes('"terminalId"')) {
          clearInterval(watcher);
          setTimeout(() => cli.kill("SIGINT"), 1000);
        }
      }, 100)
    : undefined;
  /** @type {number | null} */
  const code = await new Promise((resolve) => cli.once("close", (exitCode) => resolve(exitCode)));
  clearTimeout(deadline);
  clearInterval(watcher);
  await standIn.close();
  writeFileSync(join(runDir, "stand-in.json"), JSON.stringify(standIn.log, null, 1));
  writeFileSync(join(runDir, "cli.stdout"), stdout);
  writeFileSync(join(runDir, "cli.stderr"), stderr);
  const left = markedProcesses(mark);
  for (const pid of left) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone in between.
    }
  }
  const text = sanitizedRecord(
    record,
    replacements({ runDir, cacheDir: TERMINAL_AGENTS_CACHE, standInUrl: standIn.url }),
  )
    .split("\n")
    .map((line) => (line === "" ? line : JSON.stringify(cutLongStrings(JSON.parse(line)))))
    .join("\n");
  writeFileSync(fixture, text);
  const messages = text.split("\n").filter((line) => line.includes('"msg":')).length;
  say(
    `  -> ${fixture}: ${messages} messages, ${statSync(fixture).size} bytes, ` +
      `${((Date.now() - started) / 1000).toFixed(1)} s; the CLI exited ${code}; ` +
      `${left.length} processes left after it (killed); stand-in answered ${standIn.log.length} requests`,
  );
  say(`  CLI stderr: ${stderr.trim().split("\n").at(-1)}`);
  if (args.keep) {
    say(`  run directory kept: ${runDir}`);
  } else {
    rmSync(runDir, { recursive: true, force: true });
  }
}

/**
 * Every string over CUT_CHARS keeps its first and last KEEP_CHARS, with how much went between.
 * @param {unknown} value
 * @returns {unknown}
 */
function cutLongStrings(value) {
  if (typeof value === "string") {
    if (value.length <= CUT_CHARS) {
      return value;
    }
    const cut = value.length - 2 * KEEP_CHARS;
    return `${value.slice(0, KEEP_CHARS)}…[${cut} characters cut by the recorder]…${value.slice(-KEEP_CHARS)}`;
  }
  if (Array.isArray(value)) {
    return value.map(cutLongStrings);
  }
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, cutLongStrings(item)]),
    );
  }
  return value;
}
