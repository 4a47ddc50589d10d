#!/usr/bin/env node
/**
 * The input_required detection table: for each case, a command started through ProcessManager on a
 * local TerminalHost (stdin open), whether it is seen waiting for input, how, and the latency from
 * the output holding its prompt (or from the start, for a command that prints none) to the
 * `input` event. With /proc (the local provider on Linux), and as a provider without it sees it
 * (ACP clients: a guess from a prompt-like last line after 1 s of quiet). Cases that must not be
 * seen (a command that does not read, a server) are watched for WATCH_MS.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { TerminalHost } from "acp-terminal";
import { LocalTerminalProvider, ProcessManager } from "acp-process";
import { header } from "./support/report.mjs";

const WATCH_MS = 3000;
header(
  "process-input-required",
  "case × detected × latency (from the prompt's output to the input event)",
);

const dir = mkdtempSync(join(tmpdir(), "acp-process-bench-input-"));
writeFileSync(join(dir, "long.txt"), Array.from({ length: 500 }, (_, i) => `line ${i}`).join("\n"));
execFileSync(
  "bash",
  [
    "-c",
    `git init -q repo && for i in $(seq 1 60); do git -C repo -c user.email=b@b -c user.name=b commit -q --allow-empty -m "c $i"; done`,
  ],
  { cwd: dir },
);

const CASES = [
  {
    name: "python input() (PTY)",
    command: `python3 -c "input('name? ')"`,
    pty: true,
    prompt: "name?",
  },
  { name: "python input() (pipe)", command: `python3 -c "input('name? ')"`, prompt: "name?" },
  {
    name: "python with readline (PTY)",
    command: `python3 -c "import readline; input('name? ')"`,
    pty: true,
    prompt: "name?",
  },
  {
    name: "sudo-like password, echo off (getpass, PTY)",
    command: `python3 -c "import getpass; getpass.getpass('[sudo] password for me: ')"`,
    pty: true,
    prompt: "password",
  },
  { name: "bash read -p (PTY)", command: "read -p 'go? ' x", pty: true, prompt: "go?" },
  {
    name: "printf + read (pipe)",
    command: "printf 'continue? [y/n] '; read x",
    prompt: "continue?",
  },
  {
    name: "node readline question (pipe)",
    command: `node -e "require('readline').createInterface({input: process.stdin, output: process.stdout}).question('name? ', () => process.exit())"`,
    prompt: "name?",
  },
  {
    name: "less (PTY)",
    command: "less long.txt",
    pty: true,
    env: { TERM: "xterm", LESS: "" },
    prompt: "line 0",
  },
  {
    name: "git log with a pager (GIT_PAGER=less, PTY)",
    command: "git -C repo log",
    pty: true,
    env: { GIT_PAGER: "less", TERM: "xterm", LESS: "" },
    prompt: "commit",
  },
  { name: "cat, no prompt (pipe)", command: "cat", prompt: null },
  {
    name: "git log without a pager (PTY; must not)",
    command: "git -C repo --no-pager log --oneline",
    pty: true,
    prompt: "c 60",
    expect: false,
  },
  {
    name: "sleep, not reading (must not)",
    command: "echo 'compiling:'; sleep 5",
    prompt: "compiling",
    expect: false,
  },
  {
    name: "http server (must not)",
    command: `node -e "require('http').createServer().listen(0, () => console.log('listening'))"`,
    prompt: "listening",
    expect: false,
  },
];

async function measure(manager, testCase) {
  let promptAt;
  let inputAt;
  let how;
  const startedAt = performance.now();
  const stop = manager.subscribe((event) => {
    if (
      promptAt === undefined &&
      event.type === "output" &&
      testCase.prompt &&
      event.item.text.includes(testCase.prompt)
    ) {
      promptAt = performance.now();
    } else if (event.type === "input" && event.run.inputRequired && inputAt === undefined) {
      inputAt = performance.now();
      how = event.run.inputRequired.how ?? `guessed from "${event.run.inputRequired.prompt}"`;
    }
  });
  const run = await manager.start({
    sessionId: "bench",
    command: testCase.command,
    cwd: dir,
    stdin: true,
    ...(testCase.pty ? { pty: true } : {}),
    ...(testCase.env ? { env: testCase.env } : {}),
  });
  await manager.wait(run.id, { timeoutMs: WATCH_MS, untilInput: true });
  stop();
  await manager.kill(run.id, { signal: "SIGKILL" });
  const from = testCase.prompt ? promptAt : startedAt;
  return {
    detected: inputAt !== undefined,
    latencyMs: inputAt !== undefined && from !== undefined ? inputAt - from : undefined,
    how,
  };
}

const host = new TerminalHost();
const local = new LocalTerminalProvider(host);
// A provider without /proc (as an ACP client is): the same local terminals, no inputWait.
const blind = Object.assign(Object.create(local), { inputWait: undefined });
const withProc = new ProcessManager({ provider: local });
const withoutProc = new ProcessManager({ provider: blind });
const rows = [];
try {
  for (const testCase of CASES) {
    const proc = await measure(withProc, testCase);
    const guess = await measure(withoutProc, testCase);
    rows.push([testCase, proc, guess]);
  }
} finally {
  await withProc.dispose();
  await withoutProc.dispose();
  await host.dispose();
  rmSync(dir, { recursive: true, force: true });
}
const cell = (r, want) => {
  const ok = r.detected === want ? "" : want ? " MISSED" : " FALSE POSITIVE";
  return r.detected
    ? `yes, ${r.latencyMs === undefined ? "?" : `${Math.round(r.latencyMs)} ms`}${ok}`
    : `no${ok}`;
};
const table = [["case", "/proc (local provider)", "how", "without /proc (guess, e.g. ACP)"]];
for (const [testCase, proc, guess] of rows) {
  table.push([
    testCase.name,
    cell(proc, testCase.expect ?? true),
    proc.how ?? "",
    cell(guess, testCase.expect ?? true),
  ]);
}
const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
for (const [i, row] of table.entries()) {
  console.log(
    row
      .map((c, j) => c.padEnd(widths[j]))
      .join("  ")
      .trimEnd(),
  );
  if (i === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
}
const goal = rows[0][1];
console.log(
  `\ngoal: python input() on a PTY seen within 1 s of its prompt: ${goal.detected && goal.latencyMs < 1000 ? "met" : "NOT met"} (${Math.round(goal.latencyMs ?? NaN)} ms)`,
);
