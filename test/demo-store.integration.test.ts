/**
 * demo-agent with `--store PATH`: runs and their output are kept in a SQLite file through
 * acp-process's SqliteRunStore (read back here after the agent has exited), the first message says
 * so, and a second agent on the same file is refused with the store's reason.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { SqliteRunStore } from "acp-process/sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { withDeadline } from "./support/until.js";
import { facts, startDemoClient, type DemoClient } from "./fixtures/demo-client.js";
import { DEMO_AGENT, MARK_VARIABLE, newMark, untilNoneMarked } from "./fixtures/demo-processes.js";

let demo: DemoClient | undefined;
let mark = "";
let dir: string | undefined;

afterEach(async () => {
  await demo?.stop();
  demo = undefined;
  await untilNoneMarked(mark);
  if (dir !== undefined) {
    await rm(dir, { recursive: true, force: true });
  }
  dir = undefined;
});

describe("demo-agent --store", () => {
  it("keeps runs and their output in the SQLite file, and a second agent on that file is refused", async () => {
    mark = newMark();
    dir = await mkdtemp(path.join(tmpdir(), "demo-store-"));
    const file = path.join(dir, "runs.db");
    demo = await startDemoClient({}, mark, { agentArgs: ["--store", file] });
    expect(await demo.prompt("run echo kept-in-sqlite")).toBe("end_turn");
    expect(facts(demo.updates)[0]).toEqual({ event: "mode", provider: "local", store: file });

    // The file has one owner: another agent says why it cannot use it, and exits 1.
    const second = spawn(process.execPath, [DEMO_AGENT, "--store", file], {
      stdio: ["pipe", "ignore", "pipe"],
      env: { ...process.env, [MARK_VARIABLE]: mark },
    });
    let stderr = "";
    second.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const [code] = (await withDeadline(
      once(second, "exit"),
      10_000,
      "the second agent to exit",
    )) as [number | null];
    expect(code).toBe(1);
    expect(stderr).toMatch(/^demo-agent: The run store .*runs\.db is in use by process \d+/);

    await demo.stop();
    demo = undefined;
    const store = new SqliteRunStore(file, { exclusive: false });
    try {
      const [run] = store.listRuns();
      expect(run).toMatchObject({
        command: "echo kept-in-sqlite",
        status: "completed",
        exitCode: 0,
      });
      expect(
        store
          .allItems(run!.id)
          .map((item) => item.text)
          .join(""),
      ).toBe("kept-in-sqlite\n");
    } finally {
      store.close();
    }
  });
});
