/**
 * `corepack pnpm demo:proxy`: the example editor without terminals (examples/proxy-editor.mjs)
 * drives the demo agent through `acp-terminal proxy` and prints what it received.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { markedPids, MARK_VARIABLE, newMark } from "./fixtures/demo-processes.js";
import { killSurvivors } from "./support/processes.js";

const EXAMPLE = fileURLToPath(new URL("../examples/proxy-editor.mjs", import.meta.url));
let mark = newMark();

afterEach(() => {
  const left = markedPids(mark);
  killSurvivors(left);
  expect(left, "processes left by the example, the proxy, the agent or its terminals").toEqual([]);
  mark = newMark();
});

describe("demo:proxy", () => {
  it("prints the tour as an editor without terminals received it: questions, screens as text, exits", async () => {
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) =>
      execFile(
        process.execPath,
        [EXAMPLE, "demo"],
        { env: { ...process.env, [MARK_VARIABLE]: mark }, timeout: 60_000 },
        (error, out) => resolve({ code: error === null ? 0 : (error.code as number), stdout: out }),
      ),
    );
    expect(code).toBe(0);
    expect(stdout).toContain("editor: initialized demo-agent through acp-terminal proxy");
    expect(stdout).toContain(`asked: Run: echo "hello from the demo tour"; uname -sm → Allow once`);
    expect(stdout).toContain(
      "    ```text\n    hello from the demo tour\n    Linux x86_64\n    ```\n    exit 0",
    );
    expect(stdout).toContain("    interrupted: cleaning up\n    ```\n    exit 130");
    expect(stdout).toContain("Tour complete");
    expect(stdout).toContain("editor: the turn ended: end_turn");
  });
});
