/**
 * The runnable example, end to end: examples/serve-terminals.mjs launches examples/echo-agent.mjs
 * and hosts its terminals over stdio. Keeps the README's example honest.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { withDeadline } from "./support/until.js";

const EXAMPLE = fileURLToPath(new URL("../examples/serve-terminals.mjs", import.meta.url));

it("serve-terminals runs echo-agent's commands in its terminals and prints the results", async () => {
  const child = spawn(process.execPath, [EXAMPLE], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  try {
    const [code] = await withDeadline(once(child, "exit"), 15_000, "the example to finish");
    expect(code, stderr).toBe(0);
  } finally {
    child.kill("SIGKILL");
  }
  expect(stdout).toMatch(/^\$ uname -a\n\S+ .*\n→ exit code 0\n/);
  expect(stdout).toContain("hello\nfrom ACP terminals\n→ exit code 0");
  expect(stdout).toContain("→ exit code 2");
  expect(stdout).toContain("typed into stdin\n→ exit code 0");
  expect(stderr).toContain("[agent] stopped: end_turn");
});
