/** A host process that exits without dispose() leaves no command running. */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { killSurvivors } from "../../../test/support/processes.js";
import { withDeadline } from "../../../test/support/until.js";
import { fixture, makeHost, node, owner, processGone } from "./host-helpers.js";

const started: number[] = [];
afterEach(() => {
  killSurvivors(started.splice(0));
});

async function runHostThatExits(args: string[]): Promise<{ pids: number[]; code: number | null }> {
  const child = spawn(node, [fixture("host-exits.mjs"), ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  const [code] = (await withDeadline(once(child, "exit"), 10_000, "the host process to exit")) as [
    number | null,
  ];
  const pids = (stdout.match(/pids ([\d ]+)/)?.[1] ?? "").split(" ").filter(Boolean).map(Number);
  started.push(...pids);
  return { pids, code };
}

describe("host process exit", () => {
  it("SIGKILLs the groups of terminals it never released, pipes and PTY", async () => {
    const { pids, code } = await runHostThatExits(["--pty"]);
    expect(code).toBe(3);
    expect(pids).toHaveLength(2);
    for (const pid of pids) {
      await processGone(pid);
    }
  });

  it("listens for exit only while it owns terminals", async () => {
    const before = process.listenerCount("exit");
    const host = makeHost();
    expect(process.listenerCount("exit")).toBe(before);
    const first = await host.create(owner, { command: "sleep", args: ["30"] });
    await host.create(owner, { command: "sleep", args: ["30"] });
    expect(process.listenerCount("exit")).toBe(before + 1);
    await host.release(owner, first);
    expect(process.listenerCount("exit")).toBe(before + 1);
    await host.dispose();
    expect(process.listenerCount("exit")).toBe(before);
  });
});
