import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { V2CheckResult } from "../src/v2/base/check.js";
import { MAX_CANCEL_RECORDS, TerminalLedger, isViolation } from "../src/v2/base/terminals.js";
import { ALL_V2_CHECKS } from "../src/v2/checks/index.js";
import { summarizeV2, summaryTextV2 } from "../src/v2/report.js";

const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");

describe("the v2 conformance battery", () => {
  it("has unique ids, robustness first, the cancel checks last, and each row in the README", () => {
    const ids = ALL_V2_CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ALL_V2_CHECKS.slice(-3).map((c) => c.id)).toEqual([
      "cancel-round-trip",
      "cancel-refusal-tolerated",
      "cancel-only-when-advertised",
    ]);
    const section = README.slice(README.indexOf("### The ACP v2 battery"));
    const rows = [...section.matchAll(/^\| `([a-z-]+)` \| (must|robustness) \|/gm)].map(
      ([, id, kind]) => [id, kind],
    );
    expect(rows).toEqual(ALL_V2_CHECKS.map((c) => [c.id, c.kind]));
  });

  it("judges a cancel by what the client could have read: withdrawn only after a later round trip", () => {
    const ledger = new TerminalLedger();
    ledger.announce("plain");
    ledger.advertise("t");
    expect(ledger.standing("t")).toBe("advertised");
    ledger.withdraw("t", 5);
    expect(ledger.standing("t")).toBe("withdrawn-in-flight");
    ledger.roundTrip(4); // a ping sent before the withdrawal proves nothing about it
    expect(ledger.standing("t")).toBe("withdrawn-in-flight");
    ledger.roundTrip(5);
    expect(ledger.standing("t")).toBe("withdrawn");
    ledger.advertise("t"); // advertised again: allowed again
    expect(ledger.standing("t")).toBe("advertised");
    expect(ledger.standing("plain")).toBe("never-advertised");
    expect(ledger.standing("nope")).toBe("unknown");
    const verdicts = (
      ["advertised", "withdrawn-in-flight", "withdrawn", "never-advertised", "unknown"] as const
    ).map((standing) => isViolation({ terminalId: "t", atMs: 0, standing, answer: "" }));
    expect(verdicts).toEqual([false, false, true, true, true]);
  });

  it("keeps at most MAX_CANCEL_RECORDS cancels and counts the rest", () => {
    const ledger = new TerminalLedger();
    for (let n = 0; n < MAX_CANCEL_RECORDS + 7; n++) {
      ledger.record("t", "unknown", "-32602");
    }
    expect(ledger.cancels).toHaveLength(MAX_CANCEL_RECORDS);
    expect(ledger.droppedCancels).toBe(7);
  });

  it("summarizes not-exercised apart from pass and fail", () => {
    const result = (
      kind: V2CheckResult["kind"],
      status: V2CheckResult["status"],
    ): V2CheckResult => ({
      id: `${kind}-${status}`,
      name: "n",
      kind,
      status,
      detail: "d",
    });
    const summary = summarizeV2([
      result("robustness", "pass"),
      result("robustness", "fail"),
      result("must", "fail"),
      result("must", "not-exercised"),
      result("must", "skip"),
    ]);
    expect(summary).toEqual({ passed: 1, failed: 2, notExercised: 1, skipped: 1, specFailures: 1 });
    expect(summaryTextV2(summary)).toBe(
      "Terminal conformance (ACP v2): 1 passed, 2 failed, 1 not exercised, 1 skipped. The client fails 2 checks.\n",
    );
    expect(summaryTextV2(summarizeV2([result("must", "not-exercised")]))).toBe(
      "Terminal conformance (ACP v2): 0 passed, 0 failed, 1 not exercised, 0 skipped. No failures; some checks were not exercised.\n",
    );
  });
});
