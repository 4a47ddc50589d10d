/** Shared set-up for TerminalHost tests: hosts disposed after each test, fixtures, owners. */
import { fileURLToPath } from "node:url";
import { afterEach, expect } from "vitest";
import { TerminalError } from "../src/core/errors.js";
import { TerminalHost } from "../src/host/terminal-host.js";
import type { TerminalHostOptions, TerminalOwner } from "../src/host/types.js";
import { isAlive } from "../../../test/support/processes.js";
import { until } from "../../../test/support/until.js";

export const owner: TerminalOwner = { connectionId: "conn-1", sessionId: "session-1" };
export const otherSession: TerminalOwner = { connectionId: "conn-1", sessionId: "session-2" };
export const otherConnection: TerminalOwner = { connectionId: "conn-2", sessionId: "session-1" };

export const node = process.execPath;
export const fixture = (name: string): string =>
  fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

const hosts = new Set<TerminalHost>();

/** A host with small graces, disposed (every terminal killed) after the test. */
export function makeHost(options: TerminalHostOptions = {}): TerminalHost {
  const host = new TerminalHost({ killGraceMs: 200, exitDrainGraceMs: 200, ...options });
  hosts.add(host);
  return host;
}

afterEach(async () => {
  await Promise.all([...hosts].map((host) => host.dispose()));
  hosts.clear();
});

/** Waits until the terminal's output matches, and returns the match. */
export function outputMatching(
  host: TerminalHost,
  terminalId: string,
  pattern: RegExp,
  who = owner,
): Promise<RegExpMatchArray> {
  return until(() => host.output(who, terminalId).output.match(pattern), {
    message: `output matching ${pattern}`,
  });
}

/** Waits (with a deadline) until no process has this pid. */
export function processGone(pid: number, timeoutMs = 5_000): Promise<boolean> {
  return until(() => !isAlive(pid), { timeoutMs, message: `process ${pid} to be gone` });
}

/** The TerminalError a promise rejects with (failing the test if it resolves or rejects otherwise). */
export async function rejection(promise: Promise<unknown>): Promise<TerminalError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(TerminalError);
  return error as TerminalError;
}

export { isAlive, until };
