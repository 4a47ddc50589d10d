#!/usr/bin/env node
/**
 * From an agent's fatal error to the CLI's failure line: `acp-terminal run` (text mode, defaults)
 * against support/fatal-agent.mjs, which fails as the public adapters do and stamps the moment on
 * the machine's wall clock:
 *
 * - new-error: `session/new` answered with -32603 "Internal error" and `data.details` (claude-agent-acp
 *   "Query closed before response received"); the agent then takes 2 s to exit after its stdin
 *   closes (codex-acp's teardown). Figure: the answer's write → the CLI's `session/new failed: …
 *   (details: …)` line read from its stderr; and → the CLI's exit.
 * - crash: the agent exits 1 in the middle of the turn. Figure: its last moment → the CLI's
 *   `Agent exited with code 1 …` line; and → the CLI's exit.
 *
 * Baseline, same run, alternating batches: a bare client on the same SDK (support/fatal-client.mjs)
 * that prints the same line the moment the SDK reports the error (the SDK's and the pipes' floor),
 * then closes the agent's stdin and waits for its exit. Both sides are fresh processes each time
 * and their lines are read the same way.
 *
 * BENCH_ITERATIONS (default 20) per side and mode after BENCH_WARMUP (2); FATAL_AGENT_TEARDOWN_MS
 * (2000) the agent's teardown.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { fmt, header, Report } from "./support/report.mjs";
import { percentile, wallMs } from "./support/stats.mjs";
import { agentStderrFlags } from "./support/cli-flags.mjs";

const CLI = fileURLToPath(new URL("../packages/acp-terminal-cli/dist/main.js", import.meta.url));
const AGENT = fileURLToPath(new URL("./support/fatal-agent.mjs", import.meta.url));
const BARE = fileURLToPath(new URL("./support/fatal-client.mjs", import.meta.url));
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 20);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const BATCH = 5;
const RUN_TIMEOUT_MS = 30_000;

/** What each mode's failure line looks like, and where its agent's stamp is. */
const MODES = {
  "new-error": { line: /^session\/new failed: .*details: .*sentAt: ([\d.]+)/, stamp: undefined },
  crash: { line: /^Agent exited/, stamp: /^fatal-agent: exit at ([\d.]+)/ },
};

/**
 * Runs one client (argv) to its end; the ms from the agent's stamp to the failure line, and to the
 * client's exit.
 */
async function runOnce(argv, mode) {
  const { line: linePattern, stamp: stampPattern } = MODES[mode];
  const child = spawn(argv[0], argv.slice(1), {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, NO_COLOR: "1" },
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
  let stampAt;
  let lineAt;
  let failureLine = "";
  let pending = "";
  child.stderr.setEncoding("utf8").on("data", (chunk) => {
    const at = wallMs();
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const text of lines) {
      const stamp = stampPattern?.exec(text);
      if (stamp) stampAt = Number(stamp[1]);
      const failure = linePattern.exec(text);
      if (failure && lineAt === undefined) {
        lineAt = at;
        failureLine = text;
        if (failure[1] !== undefined) stampAt = Number(failure[1]);
      }
    }
  });
  await once(child, "close");
  const exitAt = wallMs();
  clearTimeout(timer);
  if (lineAt === undefined || stampAt === undefined) {
    throw new Error(`${argv.join(" ")}: no ${mode} failure line (or stamp) on stderr`);
  }
  return { line: lineAt - stampAt, exit: exitAt - stampAt, text: failureLine };
}

const agentArgv = (mode) => [process.execPath, AGENT, mode];
const SIDES = {
  cli: (mode) => [
    process.execPath,
    CLI,
    "run",
    ...agentStderrFlags(CLI), // the agent's stamp is read on the CLI's stderr
    "--agent",
    agentArgv(mode)
      .map((w) => `'${w}'`)
      .join(" "),
    "go",
  ],
  bare: (mode) => [process.execPath, BARE, JSON.stringify(agentArgv(mode))],
};

header(
  "acp-terminal run: an agent's fatal error → the failure line",
  `session/new answered with an error (data.details), and an agent exiting mid-turn, beside a bare SDK client; ${ITERATIONS} runs each`,
);
const report = new Report();
const lines = {};
for (const mode of Object.keys(MODES)) {
  const samples = { cli: [], bare: [] };
  const total = WARMUP + ITERATIONS;
  for (let done = 0; done < total; done += BATCH) {
    // Alternating batches, each side first as often.
    const order = (done / BATCH) % 2 === 0 ? ["cli", "bare"] : ["bare", "cli"];
    for (const side of order) {
      for (let i = done; i < Math.min(total, done + BATCH); i++) {
        const result = await runOnce(SIDES[side](mode), mode);
        lines[`${mode} ${side}`] = result.text;
        if (i >= WARMUP) samples[side].push(result);
      }
    }
  }
  for (const [figure, key] of [
    ["→ failure line", "line"],
    ["→ exit", "exit"],
  ]) {
    for (const p of [50, 95]) {
      const cli = percentile(
        samples.cli.map((s) => s[key]),
        p,
      );
      const bare = percentile(
        samples.bare.map((s) => s[key]),
        p,
      );
      report.row({
        figure: `${mode}: agent's error ${figure} p${p}`,
        value: fmt.ms(cli),
        baseline: `${fmt.ms(bare)} bare SDK client`,
        ratio: `${cli >= bare ? "+" : "-"}${fmt.ms(Math.abs(cli - bare))}`,
      });
    }
  }
}
for (const [key, text] of Object.entries(lines)) report.note(`${key}: ${text}`);
report.print();
