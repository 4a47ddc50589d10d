#!/usr/bin/env node
// Runs the acp-terminal CLI against a real agent that calls `terminal/create` (terminal-agents.mjs:
// claude-code-acp, omp, droid, from ~/.cache/terminal-agents) and the local Anthropic stand-in, as
// a user would, and says what the person saw and how much memory the CLI took. Not a test: for
// the README and the figures of a closing note.
//
//   node test/adapters/terminal-agent-session.mjs --agent omp --run "seq 1 200000" [--view text|tty|json]
//                                                 [--keep] [-- more CLI flags]
//
// Prints the screen (text: stdout; tty: the terminal as a person saw it; json: a summary of the
// events), the CLI's exit, the CLI's RSS when the agent's command was created (sampled every
// 10 ms) and its peak during the run, and the processes left. Each run gets a directory under
// ~/.cache/terminal-agents/runs/ (HOME, project), and every process a mark it is killed by.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { markedProcesses, prepareRun } from "./run-adapter.mjs";
import { RUN_PREFIX, startShellAgentStandIn } from "./shell-agent-stand-in.mjs";
import { TERMINAL_AGENTS, TERMINAL_AGENTS_CACHE } from "./terminal-agents.mjs";

const CLI = fileURLToPath(new URL("../../packages/acp-terminal-cli/dist/main.js", import.meta.url));
const SAMPLE_MS = 10;
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    agent: { type: "string", default: "omp" },
    run: { type: "string", default: "seq 1 200000" },
    view: { type: "string", default: "text" },
    keep: { type: "boolean", default: false },
  },
});
const agent = TERMINAL_AGENTS[/** @type {keyof typeof TERMINAL_AGENTS} */ (values.agent)];
if (agent === undefined) {
  throw new Error(`--agent: ${Object.keys(TERMINAL_AGENTS).join(", ")}; received ${values.agent}`);
}
const {
  runDir,
  home,
  project,
  mark,
  env: base,
} = prepareRun(join(TERMINAL_AGENTS_CACHE, "runs"), `session-${values.agent}-`);
const standIn = await startShellAgentStandIn();
/** @type {Record<string, string>} */
const env = {
  ...base,
  TERM: "xterm-256color",
  XDG_CACHE_HOME: join(home, ".cache"),
  ...agent.prepare(home, standIn.url),
};
const args = [
  CLI,
  "run",
  "--yes",
  ...(values.view === "json" ? ["--json"] : []),
  ...positionals,
  "--agent",
  agent.command(),
  `${RUN_PREFIX}${values.run}`,
];

/** @param {number | undefined} pid */
const rssOf = (pid) => {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
};
/** The CLI's RSS: its peak, and what it was when the agent's terminal appeared (on the screen). */
const memory = { peak: 0, atCreate: 0 };
const mb = (/** @type {number} */ bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
const started = Date.now();
const plain = (/** @type {string} */ text) => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");

if (values.view === "tty") {
  const requireModule = createRequire(
    new URL("../../packages/acp-terminal/package.json", import.meta.url),
  );
  /** @type {{ spawn: (file: string, args: string[], options: object) => { pid: number, onData(f: (data: string) => void): void, onExit(f: (e: { exitCode: number }) => void): void } }} */
  const pty = requireModule("node-pty");
  const term = pty.spawn(process.execPath, args, { cols: 100, rows: 40, cwd: project, env });
  const sampler = setInterval(
    () => (memory.peak = Math.max(memory.peak, rssOf(term.pid))),
    SAMPLE_MS,
  );
  let screen = "";
  term.onData((data) => {
    if (memory.atCreate === 0 && /│/.test(data)) memory.atCreate = rssOf(term.pid);
    screen += data;
  });
  const code = await new Promise((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
  clearInterval(sampler);
  // What stays on the screen: the lines printed for good (the live region is erased each redraw).
  const lines = plain(screen.replace(/\x1b\[\d*F\x1b\[0J/g, "\u0000"))
    .split("\u0000")
    .at(-1);
  process.stdout.write(`${lines}\n[exit ${code} after ${Date.now() - started} ms]\n`);
} else {
  const child = spawn(process.execPath, args, {
    cwd: project,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const sampler = setInterval(
    () => (memory.peak = Math.max(memory.peak, rssOf(child.pid))),
    SAMPLE_MS,
  );
  let stdout = "";
  let stderr = "";
  /** @type {Array<Record<string, unknown>>} */
  const events = [];
  let pending = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    if (memory.atCreate === 0 && /│|"event":"create"/.test(chunk))
      memory.atCreate = rssOf(child.pid);
    if (values.view !== "json") {
      stdout += chunk;
      return;
    }
    const lines = (pending + chunk).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      const event = JSON.parse(line);
      if (event.event === "output") {
        const text = String(event.output);
        event.output =
          text.length > 60
            ? `${JSON.stringify(text.slice(0, 24))}…${JSON.stringify(text.slice(-24))} (${text.length} chars)`
            : JSON.stringify(text);
      }
      if (event.type === "terminal") events.push(event);
    }
  });
  child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
  const code = await new Promise((resolve) => child.once("close", resolve));
  clearInterval(sampler);
  if (values.view === "json") {
    const outputs = events.filter((e) => e.event === "output");
    process.stdout.write(
      `${events
        .filter(
          (e) =>
            e.event !== "output" ||
            outputs.indexOf(e) < 3 ||
            e.skippedBytes !== undefined ||
            outputs.indexOf(e) === outputs.length - 1,
        )
        .map((e) => JSON.stringify(e))
        .join("\n")}\n[${outputs.length} output events]\n`,
    );
  } else {
    process.stdout.write(stdout);
  }
  process.stdout.write(`--- stderr\n${stderr}[exit ${code} after ${Date.now() - started} ms]\n`);
}
process.stdout.write(
  `[the CLI's RSS when the terminal appeared ${mb(memory.atCreate)}, peak ${mb(memory.peak)} (sampled every ${SAMPLE_MS} ms)]\n`,
);
await standIn.close();
const left = markedProcesses(mark);
process.stdout.write(`[processes left after the CLI exited: ${left.length}]\n`);
for (const pid of left) {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Gone in between.
  }
}
if (!values.keep) {
  rmSync(runDir, { recursive: true, force: true });
}
