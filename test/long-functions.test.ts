import { describe, expect, it } from "vitest";
import { ALLOWED, longFunctionsIn } from "../scripts/long-functions.mjs";

/** A function declaration whose text spans `lines` lines, with `top` as its first body lines. */
function fn(name: string, lines: number, top = ""): string {
  const body = Array.from({ length: lines - 2 - (top ? 1 : 0) }, (_, i) => `  const v${i} = ${i};`);
  return [`function ${name}() {`, ...(top ? [top] : []), ...body, "}"].join("\n");
}

describe("scripts/long-functions.mjs", () => {
  it("finds a function of 81 lines and not one of 80", () => {
    const found = longFunctionsIn("a.ts", `${fn("short", 80)}\n${fn("long", 81)}\n`, []);
    expect(found).toEqual([{ file: "a.ts", line: 81, name: "long", lines: 81, reason: false }]);
  });

  it("counts a long closure inside a long function as a second entry, named by its variable", () => {
    const inner = fn("ignored", 85).replace("function ignored() {", "const inner = () => {");
    const outer = `function outer() {\n${inner}\n}\n`;
    const found = longFunctionsIn("a.ts", outer, []);
    expect(found.map((entry) => [entry.name, entry.lines])).toEqual([
      ["outer", 87],
      ["inner", 85],
    ]);
  });

  it('accepts a "Long:" comment above the function or on its first line, and no other comment', () => {
    const above = `// Long: one handshake in wire order.\n${fn("above", 90)}\n`;
    const inside = `${fn("inside", 90, "  // Long: the steps of one reply.")}\n`;
    const other = `// A long function.\n${fn("other", 90)}\n`;
    expect(longFunctionsIn("a.ts", above + inside + other, []).map((e) => e.reason)).toEqual([
      true,
      true,
      false,
    ]);
  });

  it("accepts an ALLOWED entry only for its own file and function", () => {
    const allowed = [{ file: "a.ts", name: "held", why: "another change holds this file" }];
    expect(longFunctionsIn("a.ts", fn("held", 90), allowed)[0]?.reason).toBe(true);
    expect(longFunctionsIn("b.ts", fn("held", 90), allowed)[0]?.reason).toBe(false);
    expect(longFunctionsIn("a.ts", fn("other", 90), allowed)[0]?.reason).toBe(false);
  });

  it("holds no ALLOWED entry without a reason", () => {
    for (const entry of ALLOWED) {
      expect(entry.why.trim().length, `${entry.file} ${entry.name}`).toBeGreaterThan(10);
    }
  });
});
