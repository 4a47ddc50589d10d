/**
 * The workspace check cannot be raced: while another process keeps swapping a directory of the
 * workspace for a symlink to a directory outside it, 300 commands asked to start there each start
 * inside the workspace or are refused; none starts outside (the server opens the directory once,
 * checks the open directory's path, and starts the command in that open directory).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import type { McpTestClient } from "./support/mcp-clients.js";
import { connectMcp } from "./support/mcp-server.js";

let root: string;
let mark: string;
let client: McpTestClient | undefined;

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "mcp-race-")));
  mkdirSync(path.join(root, "workspace", "sub"), { recursive: true });
  mkdirSync(path.join(root, "outside"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(async () => {
  await client?.close();
  await untilNoneMarked(mark);
});

/** A process that swaps `sub` for a symlink to `outside` and back, as fast as it can. */
const SWAPPER = `
const fs = require("node:fs");
const [sub, outside] = process.argv.slice(1);
for (;;) {
  try {
    fs.renameSync(sub, sub + ".real");
    fs.symlinkSync(outside, sub);
    fs.unlinkSync(sub);
    fs.renameSync(sub + ".real", sub);
  } catch {}
}`;

test("300 starts in a directory swapped for a symlink out of the workspace: none runs outside", async () => {
  mark = newMark();
  const workspace = path.join(root, "workspace");
  const sub = path.join(workspace, "sub");
  client = await connectMcp("v2", ["--workspace", workspace, "--yes"], mark);
  const swapper = spawn(process.execPath, ["-e", SWAPPER, sub, path.join(root, "outside")], {
    stdio: "ignore",
  });
  const places: string[] = [];
  let refused = 0;
  try {
    for (let batch = 0; batch < 30; batch++) {
      // The process's own directory (getcwd): bash's builtin `pwd -P` resolves again the path it
      // found at its start, so it names `outside` when `sub` became the symlink in between.
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          client!.callTool("exec", { command: "/bin/pwd -P", workdir: sub }),
        ),
      );
      for (const result of results) {
        if (result.isError) {
          refused++;
        } else {
          places.push(String(result.structuredContent?.["output"]).trim());
        }
      }
    }
  } finally {
    swapper.kill("SIGKILL");
  }
  const outside = places.filter((place) => !place.startsWith(`${workspace}/`));
  expect(outside, `started outside the workspace: ${outside.length} of 300`).toEqual([]);
  expect(places.length + refused).toBe(300);
  expect(places.length).toBeGreaterThan(0);
});

test("a command under a PTY that goes back to its $PWD lands in its own directory, though refused starts open others meanwhile", async () => {
  mark = newMark();
  const workspace = path.join(root, "workspace");
  client = await connectMcp("v2", ["--workspace", workspace, "--yes", "--tools", "unified"], mark);
  // Under a PTY the command's $PWD is the server's /proc/<pid>/fd/N for the directory it opened:
  // were N closed once the command started, the next open (here `outside`, to be refused) takes it.
  const running = client.callTool("exec_command", {
    cmd: 'for i in $(seq 60); do (cd "$PWD" && /bin/pwd -P); sleep 0.02; done',
    workdir: workspace,
    tty: true,
    yield_time_ms: 30000,
  });
  let finished = false;
  void running.finally(() => (finished = true));
  let refused = 0;
  while (!finished && refused < 5000) {
    const result = await client.callTool("exec_command", {
      cmd: "true",
      workdir: path.join(root, "outside"),
    });
    expect(result.isError, "a start outside the workspace is refused").toBe(true);
    refused++;
  }
  const result = await running;
  const places = String(result.structuredContent?.["output"]).trim().split(/\r?\n/);
  expect(places.length).toBe(60);
  expect(places.filter((place) => place !== workspace)).toEqual([]);
  expect(refused).toBeGreaterThan(0);
});
