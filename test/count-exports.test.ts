import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { countDrift, documentedCounts, exportsOf } from "../scripts/count-exports.mjs";

const dir = mkdtempSync(join(tmpdir(), "count-exports-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("scripts/count-exports.mjs", () => {
  it("counts values and type-only names, re-exports included", () => {
    writeFileSync(join(dir, "other.d.ts"), "export declare const b: number;\nexport type C = 1;\n");
    writeFileSync(
      join(dir, "index.d.ts"),
      'export declare function a(): void;\nexport interface I {}\nexport { b, type C } from "./other.js";\nexport declare class K {}\n',
    );
    const [counted] = exportsOf([join(dir, "index.d.ts")]);
    expect(counted?.names).toEqual(["C", "I", "K", "a", "b"]);
    expect(counted?.values).toEqual(["K", "a", "b"]);
  });

  it("reads the count of every entry point in the packages' README tables", () => {
    const entries = documentedCounts().map((row) => row.entry);
    expect(entries).toEqual(
      expect.arrayContaining([
        "acp-terminal",
        "acp-terminal/approval",
        "acp-terminal/protocol",
        "acp-terminal/keys",
        "acp-terminal/internal",
        "acp-process",
        "acp-process/sqlite",
        "acp-process/tools",
        "acp-process/v2",
        "acp-process/provider",
      ]),
    );
    const root = documentedCounts().find((row) => row.entry === "acp-terminal");
    expect(root?.values).toBeTypeOf("number");
  });

  it("finds every README count equal to what the built entry point exports", () => {
    expect(countDrift()).toEqual([]);
  });
});
