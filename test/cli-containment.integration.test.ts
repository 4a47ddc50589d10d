/**
 * However `acp-terminal run` ends, no process a terminal started outlives it: not the command, not
 * a child in its group, not one ignoring SIGTERM under nohup, and (with the default process-tree
 * containment, where the launcher runs) not those that left the group with setsid, setsid -f, a
 * double fork, or env -i with both. Every process carries a marker; what is left is counted by
 * it. Pipes and PTY.
 */
import { afterAll, describe, expect, it } from "vitest";
import { treesWork } from "./support/containment.js";
import { newMarker } from "./support/escapes.js";
import { killSurvivors, processesWith } from "./support/processes.js";
import { until } from "./support/until.js";
import {
  FIXTURE_AGENT,
  killAllStarted,
  nodeAgent,
  startCli,
  type CliProcess,
} from "./fixtures/cli-process.js";

const markers: string[] = [];
// Concurrent tests: nothing is cleaned up between them, everything after the last one.
afterAll(() => {
  const survivors = killSurvivors(markers.flatMap(processesWith));
  killAllStarted();
  expect(survivors).toEqual([]);
});

/** Started before the terminal says its pid: the escapes (where a namespace holds them) and a child in the group. */
function escapes(marker: string): string {
  const leaving = treesWork
    ? `setsid sleep ${marker} & setsid -f sleep ${marker}; (setsid sh -c 'sleep ${marker} & exit 0' &); ` +
      `(env -i /usr/bin/setsid /bin/sh -c '/bin/sleep ${marker} & exit 0' &); `
    : "";
  return `${leaving}nohup sh -c 'trap "" TERM HUP INT; sleep ${marker}' >/dev/null 2>&1 & sleep ${marker} &`;
}

const FAULTS: [string, string, ((cli: CliProcess) => void) | undefined][] = [
  ["the agent crashes", "crash", undefined],
  ["the agent closes the connection", "close", undefined],
  ["SIGTERM", "stubborn", (cli) => cli.child.kill("SIGTERM")],
  ["SIGINT", "stubborn", (cli) => cli.child.kill("SIGINT")],
  ["SIGHUP", "stubborn", (cli) => cli.child.kill("SIGHUP")],
  ["SIGKILL", "stubborn", (cli) => cli.child.kill("SIGKILL")],
];

describe.each([
  ["pipes", []],
  ["a PTY", ["--pty"]],
] as const)("acp-terminal run in %s leaves no marked process behind", (_, ptyFlag) => {
  it.concurrent.each(FAULTS)("when %s", async (_fault, mode, fault) => {
    const marker = newMarker();
    markers.push(marker);
    const agent = nodeAgent(FIXTURE_AGENT, mode, escapes(marker), marker);
    const cli = startCli([
      "run",
      "--yes",
      ...ptyFlag,
      "--cancel-grace",
      "0.2",
      "--agent",
      agent,
      "go",
    ]);
    if (fault) {
      await cli.waitForPids();
      fault(cli);
    }
    await cli.result();
    await until(() => processesWith(marker).length === 0, {
      timeoutMs: 5_000,
      message: `every process marked ${marker} to end`,
    }).catch(() => {});
    expect(processesWith(marker)).toEqual([]);
  });
});

it("says how terminals are contained with --verbose", async () => {
  const { stderr, code } = await startCli([
    "run",
    "--verbose",
    "--agent",
    nodeAgent(FIXTURE_AGENT, "echo"),
    "hi",
  ]).result();
  expect(code).toBe(0);
  expect(stderr).toContain(
    `acp-terminal: containment: ${treesWork ? "process-tree" : "process-group"} (`,
  );
});
