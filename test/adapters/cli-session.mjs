#!/usr/bin/env node
// Runs the acp-terminal CLI against a real public adapter (claude-agent-acp or codex-acp, from
// ~/.cache/acp-adapters, see README) talking to the local stand-in model API, as a user would:
// for the README's sessions and the figures of the closing note. Not a test.
//
//   node test/adapters/cli-session.mjs --adapter claude [--protocol v1-meta] [-- more CLI flags]
//   node test/adapters/cli-session.mjs --adapter codex --cancel      (on a TTY: Ctrl-C once the
//                                                                      long loop printed tick 3)
//   node test/adapters/cli-session.mjs --adapter codex --stamps       (each stdout line with the ms
//                                                                      at which it was read)
//   node test/adapters/cli-session.mjs --adapter codex --tap FILE     (every message both ways,
//                                                                      as record.mjs keeps them)
//   node test/adapters/cli-session.mjs --adapter claude --break      (session/new fails: prints
//                                                                      the ms from the adapter's
//                                                                      error to the CLI's line)
//
// Each run gets a directory under ~/.cache/acp-adapters/runs/ (HOME, project), as record.mjs does;
// every process it starts carries a mark and is killed by it at the end.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ADAPTERS, CACHE_DIR, packageDir } from "./adapters.mjs";
import { DEMO_PROMPT } from "./dialects.mjs";
import { CANCEL_PROMPT } from "./http-stand-in.mjs";
import { markedProcesses, prepareRun } from "./run-adapter.mjs";

const CLI = fileURLToPath(new URL("../../packages/acp-terminal-cli/dist/main.js", import.meta.url));
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    adapter: { type: "string", default: "claude" },
    protocol: { type: "string" },
    cancel: { type: "boolean", default: false },
    break: { type: "boolean", default: false },
    tty: { type: "boolean", default: false },
    // The prompt piped on stdin, which stays open this many seconds (the session lives on).
    stay: { type: "string" },
    // Every JSON-RPC message between the CLI and the adapter, appended to this file (tap.mjs).
    tap: { type: "string" },
    // Each line of the CLI's stdout prefixed with the ms since the start at which it was read.
    stamps: { type: "boolean", default: false },
  },
});
const adapter = ADAPTERS[/** @type {"claude" | "codex"} */ (values.adapter)];
if (adapter === undefined) {
  throw new Error(`--adapter: claude or codex, received ${values.adapter}`);
}
const {
  runDir,
  home,
  project,
  mark,
  env: base,
} = prepareRun(join(CACHE_DIR, "runs"), `cli-${values.adapter}-`);
const standIn = await adapter.startStandIn({});
const clock = join(runDir, "error-clock");
/** @type {Record<string, string>} */
const env = { ...base, TERM: "xterm-256color", ...adapter.prepare(home, standIn.url) };
if (values.break) {
  adapter.breakNewSession.apply(env, home);
}
// The adapter behind a proxy that notes when it answers with an error (the CLI's clock is the same).
const proxy = join(runDir, "error-clock.mjs");
writeFileSync(
  proxy,
  `import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
const child = spawn(process.argv[2], process.argv.slice(3), { stdio: ["pipe", "pipe", "inherit"] });
process.stdin.pipe(child.stdin);
child.stdout.on("data", (chunk) => {
  if (chunk.includes('"error":{')) appendFileSync(${JSON.stringify(clock)}, Date.now() + "\\n");
  process.stdout.write(chunk);
});
child.on("exit", (code, signal) => process.exit(code ?? 1));
for (const s of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(s, () => child.kill(s));
`,
);
const tap =
  values.tap === undefined
    ? []
    : [
        fileURLToPath(new URL("./tap.mjs", import.meta.url)),
        "--out",
        values.tap,
        "--",
        process.execPath,
      ];
const agent = [
  process.execPath,
  proxy,
  process.execPath,
  ...tap,
  join(packageDir(adapter), adapter.entry),
]
  .map((word) => `'${word}'`)
  .join(" ");
const prompt = values.cancel ? CANCEL_PROMPT : DEMO_PROMPT;
const args = [
  CLI,
  "run",
  "--yes",
  // The adapter's stderr beside the CLI's, as before the CLI logged it to a file by default.
  "--agent-stderr",
  // The prompt on stdin is one turn, and the session lives on while stdin stays open.
  ...(values.stay === undefined ? [] : ["--lines"]),
  ...(values.protocol ? ["--protocol", values.protocol] : []),
  ...positionals,
  "--agent",
  agent,
  ...(values.stay === undefined ? [prompt] : []),
];
const started = Date.now();
let errorLineAt;
const plain = (text) => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");

if (values.tty || values.cancel) {
  const requireModule = createRequire(
    new URL("../../packages/acp-terminal/package.json", import.meta.url),
  );
  /** @type {{ spawn: (file: string, args: string[], options: object) => { onData(f: (data: string) => void): void, onExit(f: (e: { exitCode: number }) => void): void, write(data: string): void } }} */
  const pty = requireModule("node-pty");
  const term = pty.spawn(process.execPath, args, { cols: 100, rows: 40, cwd: project, env });
  let screen = "";
  let cancelled = false;
  // Ctrl-C once the long loop printed tick 3, or (an adapter that shows no live output: claude
  // over v1 _meta) 3 s after the foreground loop's tool call appeared.
  let foregroundSeen = false;
  const cancel = () => {
    if (!cancelled) {
      cancelled = true;
      process.stdout.write(`[${Date.now() - started} ms: Ctrl-C]\n`);
      term.write("\x03");
    }
  };
  term.onData((data) => {
    screen += data;
    if (!values.cancel || cancelled) {
      return;
    }
    if (/tick 3\b/.test(screen)) {
      cancel();
    } else if (!foregroundSeen && screen.split("seq 1 100").length > 3) {
      foregroundSeen = true;
      setTimeout(cancel, 3000);
    }
  });
  const code = await new Promise((resolve) => term.onExit(({ exitCode }) => resolve(exitCode)));
  process.stdout.write(`${plain(screen)}\n[exit ${code} after ${Date.now() - started} ms]\n`);
} else {
  const child = spawn(process.execPath, args, { cwd: project, env });
  if (values.stay !== undefined) {
    child.stdin.write(`${prompt}\n`);
    setTimeout(() => child.stdin.end(), Number(values.stay) * 1000);
  } else {
    child.stdin.end();
  }
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    const at = `[${String(Date.now() - started).padStart(5)}] `;
    stdout += values.stamps ? chunk.replace(/^(?=.)/gm, at) : chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk) => {
    stderr += chunk;
    if (errorLineAt === undefined && /failed: /.test(stderr)) {
      errorLineAt = Date.now();
    }
  });
  const code = await new Promise((resolve) => child.once("close", resolve));
  const ended = Date.now();
  process.stdout.write(
    `--- stdout\n${stdout}--- stderr\n${stderr}[exit ${code} after ${ended - started} ms]\n`,
  );
  if (errorLineAt !== undefined) {
    const errorAt = Number(readFileSync(clock, "utf8").split("\n")[0]);
    process.stdout.write(
      `[the adapter's error → the CLI's line: ${errorLineAt - errorAt} ms; → the CLI's exit: ${ended - errorAt} ms]\n`,
    );
  }
}
await standIn.close();
// What the CLI left running (the adapter's commands, say), before this script kills it.
const left = markedProcesses(mark);
process.stdout.write(`[processes left after the CLI exited: ${left.length}]\n`);
for (const pid of left) {
  try {
    const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
    process.stdout.write(`  ${pid} ${command.slice(0, 120)}\n`);
  } catch {
    // gone meanwhile
  }
}
for (const pid of left) {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone meanwhile
  }
}
