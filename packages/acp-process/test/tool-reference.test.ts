import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const SCRIPT = new URL("../../../scripts/tool-reference.mjs", import.meta.url).pathname;
const README = new URL("../README.md", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "tool-reference-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the generated tool reference in the README", () => {
  it("is current with the tools' schemas (regenerate: node scripts/tool-reference.mjs)", async () => {
    const { stdout } = await run(process.execPath, [SCRIPT, "--check"]);
    expect(stdout).toContain("the tool reference is current");
  });

  it("the check fails, saying what to run, when a row no longer matches the schemas", async () => {
    const stale = join(dir, "README.md");
    copyFileSync(README, stale);
    writeFileSync(
      stale,
      readFileSync(stale, "utf8").replace(
        "| `wait_secs` | number | 30 |",
        "| `wait_secs` | number | 60 |",
      ),
    );
    const failed = await run(process.execPath, [SCRIPT, "--check", "--readme", stale]).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain(
      "the tool reference is stale; run node scripts/tool-reference.mjs",
    );
  });

  it("has a row per parameter, with its limits and what happens out of range", () => {
    const readme = readFileSync(README, "utf8");
    expect(readme).toContain(
      "| `wait_secs` | number | 30 | ≥ 0, ≤ 300 | outside the limits: refused (`invalid_params` naming it) |",
    );
    expect(readme).toContain("| `run_id` (alias of `id`) |");
    expect(readme).toMatch(/#### `exec`[\s\S]*#### `process`[\s\S]*#### `shell`/);
  });
});
