/**
 * With `acp-terminal run`'s defaults a command's pids are the machine's, so what agents do across
 * the terminals of a session works as in a shell: a pid file written in one terminal kills from
 * another, `pkill -f` and `ps` find another terminal's processes, `$$` names the process the agent
 * finds under that pid. An SDK agent (test/fixtures/cli-agent.mjs script) runs each workflow
 * through the CLI with --yes; every process it starts is marked and counted at the end.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { namespacesWork, treesWork } from "./support/containment.js";
import { newMarker } from "./support/escapes.js";
import { killSurvivors, processesWith } from "./support/processes.js";
import { FIXTURE_AGENT, killAllStarted, nodeAgent, startCli } from "./fixtures/cli-process.js";

interface Step {
  command: string;
  ready?: string;
  wait?: boolean;
}
interface StepResult {
  output: string;
  exitStatus: { exitCode: number | null; signal: string | null } | null;
  pids: { pid: number; cmdline: string | null }[];
}

const markers: string[] = [];
afterAll(() => {
  const survivors = killSurvivors(markers.flatMap(processesWith));
  killAllStarted();
  expect(survivors).toEqual([]);
});

/** Runs the steps through the CLI; returns what the agent reported, and the CLI's stderr. */
async function runSteps(steps: (marker: string) => Step[], flags: string[] = []) {
  const marker = newMarker();
  markers.push(marker);
  const cwd = mkdtempSync(join(tmpdir(), "cli-host-pids-"));
  const cli = startCli([
    "run",
    "--yes",
    "--cwd",
    cwd,
    ...flags,
    "--agent",
    nodeAgent(FIXTURE_AGENT, "script", JSON.stringify(steps(marker))),
    "go",
  ]);
  const { code, stderr } = await cli.result(30_000);
  const line = /^RESULT (.*)$/m.exec(stderr);
  if (code !== 0 || !line) {
    throw new Error(`acp-terminal run exited ${code} without a result; stderr:\n${stderr}`);
  }
  const result = JSON.parse(line[1]!) as { containment: string | null; steps: StepResult[] };
  return { ...result, stderr, marker };
}

const exitCode = (code: number) => ({ exitCode: code, signal: null });

describe("acp-terminal run with its defaults: pids are the machine's across terminals", () => {
  it.concurrent("a pid file written in one terminal kills that process from another", async () => {
    const { steps, marker } = await runSteps((m) => [
      { command: `sleep ${m} & echo $! > server.pid; echo started; wait`, ready: "started" },
      { command: "kill $(cat server.pid)", wait: true },
    ]);
    expect(steps[1]).toMatchObject({ output: "", exitStatus: exitCode(0) });
    // Its `wait` returns once the process the pid file named is gone: the first terminal ends too.
    expect(steps[0]?.exitStatus).toEqual(exitCode(0));
    expect(processesWith(marker)).toEqual([]);
  });

  it.concurrent("pkill -f in one terminal ends a command running in another", async () => {
    const { steps, marker } = await runSteps((m) => [
      { command: `echo up; exec sleep ${m}`, ready: "up" },
      { command: `pkill -f '^sleep ${m}'`, wait: true },
    ]);
    expect(steps[1]?.exitStatus).toEqual(exitCode(0));
    expect(steps[0]?.exitStatus).toEqual({ exitCode: null, signal: "SIGTERM" });
    expect(processesWith(marker)).toEqual([]);
  });

  it.concurrent(
    "$$ printed in a terminal is the process the agent finds under that pid on its machine, and another terminal kills it by that pid",
    async () => {
      const { steps, marker } = await runSteps((m) => [
        { command: `echo pid=$$; echo $$ > self.pid; exec sleep ${m}`, ready: "pid=" },
        { command: "kill $(cat self.pid)", wait: true },
      ]);
      // The process under that pid runs this command: still bash, or sleep once bash exec'd it
      // (the agent looks as soon as the pid is printed, which may be before the exec).
      expect(steps[0]?.pids).toEqual([
        {
          pid: expect.any(Number) as number,
          cmdline: expect.stringMatching(
            new RegExp(`sleep ${marker.replaceAll(".", "\\.")}$`),
          ) as string,
        },
      ]);
      expect(steps[1]?.exitStatus).toEqual(exitCode(0));
      expect(steps[0]?.exitStatus).toEqual({ exitCode: null, signal: "SIGTERM" });
    },
  );

  it.concurrent("ps in one terminal names the background process another one started", async () => {
    const { steps, marker } = await runSteps((m) => [
      { command: `sleep ${m} & echo $! > bg.pid; echo started; wait`, ready: "started" },
      { command: "ps -o args= -p $(cat bg.pid)", wait: true },
      { command: "kill $(cat bg.pid)", wait: true },
    ]);
    expect(steps[1]).toMatchObject({ output: `sleep ${marker}\n`, exitStatus: exitCode(0) });
    expect(steps[2]?.exitStatus).toEqual(exitCode(0));
    expect(processesWith(marker)).toEqual([]);
  });

  it.concurrent(
    "the capability and --verbose say what is in force: process-tree where the launcher runs",
    async () => {
      const mode = treesWork ? "process-tree" : "process-group";
      const { containment, stderr } = await runSteps(() => [], ["--verbose"]);
      expect(containment).toBe(mode);
      expect(stderr).toContain(`acp-terminal: containment: ${mode} (`);
    },
  );
});

describe("acp-terminal run --pid-namespace", () => {
  it.runIf(namespacesWork)(
    "is the explicit choice: each terminal has its own pids, which the capability and --verbose say",
    async () => {
      const { containment, stderr, steps } = await runSteps(
        () => [{ command: "echo $$", wait: true }],
        ["--verbose", "--pid-namespace"],
      );
      expect(containment).toBe("pid-namespace");
      expect(stderr).toContain("acp-terminal: containment: pid-namespace (");
      // The shell is the namespace's third process (its init and the relay come first).
      expect(Number(steps[0]?.output)).toBeLessThan(10);
    },
  );
});
