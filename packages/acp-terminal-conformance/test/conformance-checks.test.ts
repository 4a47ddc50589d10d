import { describe, expect, it } from "vitest";
import type { CheckResult } from "../src/base/check.js";
import { ALL_CHECKS } from "../src/checks/index.js";
import { summarize, summaryText } from "../src/report.js";

describe("the conformance battery", () => {
  it("has unique ids, spec checks first, then behaviour, then extensions", () => {
    const ids = ALL_CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    const rank = { must: 0, should: 0, behaviour: 1, extension: 2 } as const;
    const ranks = ALL_CHECKS.map((c) => rank[c.kind]);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    expect(ALL_CHECKS.filter((c) => c.kind === "must").length).toBeGreaterThanOrEqual(15);
  });

  it("summarizes results, counting spec failures apart from the rest", () => {
    const result = (kind: CheckResult["kind"], status: CheckResult["status"]): CheckResult => ({
      id: `${kind}-${status}`,
      name: "n",
      kind,
      status,
      detail: "d",
    });
    const summary = summarize([
      result("must", "pass"),
      result("must", "fail"),
      result("should", "fail"),
      result("extension", "fail"),
      result("extension", "skip"),
    ]);
    expect(summary).toEqual({ passed: 1, failed: 3, skipped: 1, specFailures: 2 });
    expect(summaryText(summary)).toBe(
      "Terminal conformance: 1 passed, 3 failed, 1 skipped. The client fails 3 checks.\n",
    );
    expect(summaryText(summarize([result("must", "pass")]))).toBe(
      "Terminal conformance: 1 passed, 0 failed, 0 skipped. The client conforms.\n",
    );
  });
});

describe("pids a command printed", () => {
  it("are watched only when they name that very process here, never another namespace's namesake", async () => {
    const { execFileSync } = await import("node:child_process");
    const { pidHere, READ_SHELL_PID } = await import("../src/checks/pids.js");
    // A shell that prints itself as READ_SHELL_PID reads it, then stays (its pid stays valid).
    const line = execFileSync("sh", ["-c", `${READ_SHELL_PID} echo me=$p@$t`], {
      encoding: "utf8",
    });
    expect(line).toMatch(/^me=\d+@\d+\n$/);
    // This process: alive here, printed with its real start time, or without one (no /proc there).
    const stat = execFileSync("cat", [`/proc/${process.pid}/stat`], { encoding: "utf8" });
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    expect(pidHere(`me=${process.pid}@${start}`, "me")).toBe(process.pid);
    expect(pidHere(`me=${process.pid}`, "me")).toBe(process.pid);
    // A container's pid 1 printed from there: pid 1 runs here too, but started at another time.
    expect(pidHere("me=1@99999999999", "me")).toBeUndefined();
  });
});
