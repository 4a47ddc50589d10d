#!/usr/bin/env node
// Records the acp-terminal CLI itself driving a real public adapter (from ~/.cache/acp-adapters,
// see record.mjs) against the local stand-in model, through the stdio tap: every message both ways,
// into test/fixtures/adapters/<adapter>-<fixture>.jsonl, sanitized as record.mjs does. A scenario is
// a few CLI runs in one HOME and project (a session made, then listed; an edit; commands), each
// prompt naming a stand-in script (scripted-turns.mjs). Replayed by the CLI's tests.
//
//   node test/adapters/record-cli.mjs --adapter claude|codex --scenario NAME [--keep] [--debug]
//
// Scenarios: sessions (a session, then `sessions list`), edit (a read, an edit, a new file),
// commands (touch ran2.txt, then rm -rf build), each under the default dialect and v1 `_meta`.
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ADAPTERS, CACHE_DIR, installAdapters, packageDir } from "./adapters.mjs";
import { GEMINI } from "./gemini-adapter.mjs";
import { markedProcesses, prepareRun } from "./run-adapter.mjs";
import { replacements, sanitizedRecord } from "./sanitize.mjs";
import { EDITED_BEFORE, EDITED_FILE } from "./scripted-turns.mjs";

const CLI = fileURLToPath(new URL("../../packages/acp-terminal-cli/dist/main.js", import.meta.url));
const TAP = fileURLToPath(new URL("./tap.mjs", import.meta.url));
const STEP_TIMEOUT_MS = 180_000;

/**
 * @typedef {{ args: string[], fixture?: string, input?: string, adapters?: string[] }} Step
 * @typedef {{ files?: Record<string, string>, env?: Record<string, Record<string, string>>, steps: Step[] }} Scenario
 */

/** @type {Record<string, Scenario>} */
const SCENARIOS = {
  sessions: {
    steps: [
      { args: ["run", "--yes", "[script:hello] say hello"] },
      { args: ["sessions", "list"], fixture: "sessions-list" },
    ],
  },
  edit: {
    files: { [EDITED_FILE]: EDITED_BEFORE },
    // Codex asks before it applies a patch in its read-only mode (the user reviews, not a model).
    env: { codex: { INITIAL_AGENT_MODE: "read-only" } },
    steps: [
      {
        args: ["run", "--yes", "[script:edit] edit notes.txt, then create todo.txt"],
        fixture: "edit-v2",
      },
      {
        args: [
          "run",
          "--yes",
          "--protocol",
          "v1-meta",
          "[script:edit] edit notes.txt, then create todo.txt",
        ],
        fixture: "edit-v1-meta",
      },
      {
        // Gemini CLI creates a new file through the client's fs only when told ENOENT its way.
        args: ["run", "--yes", "--no-fs", "[script:edit] edit notes.txt, then create todo.txt"],
        fixture: "edit-no-fs",
        adapters: ["gemini"],
      },
    ],
  },
  commands: {
    // Codex asks the user (not its reviewer model) before an escalated command.
    env: { codex: { INITIAL_AGENT_MODE: "workspace-write" } },
    steps: [
      {
        args: ["run", "--yes", "[script:commands] touch ran2.txt, then rm -rf build"],
        fixture: "commands-v2",
      },
      {
        args: [
          "run",
          "--yes",
          "--protocol",
          "v1-meta",
          "[script:commands] touch ran2.txt, then rm -rf build",
        ],
        fixture: "commands-v1-meta",
      },
      {
        // No --yes, no terminal: --allow decides; the sandbox cannot reach the agent's commands.
        args: [
          "run",
          "--allow",
          "touch *",
          "--sandbox",
          "read-only",
          "[script:commands] touch ran2.txt, then rm -rf build",
        ],
        fixture: "commands-allow",
      },
    ],
  },
};

const { values: args } = parseArgs({
  options: {
    adapter: { type: "string", default: "claude" },
    scenario: { type: "string" },
    keep: { type: "boolean", default: false },
    debug: { type: "boolean", default: false },
    out: {
      type: "string",
      default: fileURLToPath(new URL("../fixtures/adapters/", import.meta.url)),
    },
  },
});
/** @type {Record<string, import("./adapters.mjs").Adapter & { args?: string[] }>} */
const ALL = { ...ADAPTERS, gemini: GEMINI };
const adapter = ALL[args.adapter ?? ""];
const scenario = SCENARIOS[args.scenario ?? ""];
if (adapter === undefined || scenario === undefined) {
  throw new Error(
    `usage: record-cli.mjs --adapter claude|codex|gemini --scenario ${Object.keys(SCENARIOS).join("|")}`,
  );
}
/** @param {string} line */
const say = (line) => process.stdout.write(`${line}\n`);
await installAdapters([adapter], say);

const {
  runDir,
  home,
  project,
  mark,
  env: base,
} = prepareRun(join(CACHE_DIR, "runs"), `cli-${args.adapter}-`);
/** Each step starts from the scenario's files, and nothing else, in the project. */
function resetProject() {
  rmSync(project, { recursive: true, force: true });
  mkdirSync(project, { recursive: true });
  for (const [name, text] of Object.entries(scenario.files ?? {})) {
    writeFileSync(join(project, name), text);
  }
}
const standIn = await adapter.startStandIn({ keepBodies: args.debug });
/** @type {Record<string, string>} */
const env = {
  ...base,
  ...adapter.prepare(home, standIn.url),
  XDG_STATE_HOME: join(runDir, "state"),
  ...scenario.env?.[args.adapter ?? ""],
};
let failures = 0;
try {
  for (const [index, step] of scenario.steps.entries()) {
    if (step.adapters !== undefined && !step.adapters.includes(args.adapter ?? "")) {
      continue;
    }
    resetProject();
    const record = join(runDir, `step-${index}.jsonl`);
    const agent = [process.execPath, TAP, "--out", record, "--", process.execPath]
      .concat(join(packageDir(adapter), adapter.entry), adapter.args ?? [])
      .map((word) => `'${word}'`)
      .join(" ");
    const [command, ...rest] = step.args;
    const cliArgs = [command, "--agent-stderr", "--agent", agent, ...rest];
    say(`${args.adapter} step ${index}: acp-terminal ${step.args.join(" ")}`);
    const result = await runCli(cliArgs, step.input);
    say(result.output.replace(/^/gm, "  | ").trimEnd());
    say(`  exit ${result.code}`);
    say(`  project after: ${readdirSync(project).sort().join(" ") || "(empty)"}`);
    if (step.fixture !== undefined) {
      const text = sanitizedRecord(
        record,
        replacements({ runDir, cacheDir: CACHE_DIR, standInUrl: standIn.url }),
      );
      const fixture = join(args.out, `${args.adapter}-${step.fixture}.jsonl`);
      writeFileSync(fixture, text);
      say(`  -> ${fixture}: ${text.split("\n").length - 1} lines`);
    }
  }
} catch (error) {
  failures += 1;
  say(`FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
} finally {
  await standIn.close();
  if (args.debug) {
    writeFileSync(join(runDir, "stand-in.json"), JSON.stringify(standIn.log, null, 1));
  }
  for (const pid of markedProcesses(mark)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
  if (args.keep || args.debug) {
    say(`run directory kept: ${runDir}`);
  } else {
    rmSync(runDir, { recursive: true, force: true });
  }
}
process.exitCode = failures === 0 ? 0 : 1;

/**
 * Runs the CLI in the project with `input` on stdin; its stdout and stderr together, and its code.
 * @param {string[]} cliArgs
 * @param {string | undefined} input
 * @returns {Promise<{ code: number | null, output: string }>}
 */
function runCli(cliArgs, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...cliArgs], { cwd: project, env });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => (output += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk) => (output += chunk));
    child.stdin.end(input ?? "");
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the CLI did not exit within ${STEP_TIMEOUT_MS} ms:\n${output}`));
    }, STEP_TIMEOUT_MS);
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
