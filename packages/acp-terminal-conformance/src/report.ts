import { writeFile } from "node:fs/promises";
import type { Implementation } from "@agentclientprotocol/sdk";
import type { CheckKind, CheckResult } from "./base/check.js";

export interface ConformanceSummary {
  passed: number;
  failed: number;
  skipped: number;
  /** Failed `must`/`should` checks: the client breaks the spec. */
  specFailures: number;
}

export interface ConformanceReport {
  client: Implementation | null;
  checks: CheckResult[];
  summary: ConformanceSummary;
}

export function summarize(checks: readonly CheckResult[]): ConformanceSummary {
  const count = (status: CheckResult["status"]) => checks.filter((c) => c.status === status).length;
  const spec: ReadonlySet<CheckKind> = new Set(["must", "should"]);
  return {
    passed: count("pass"),
    failed: count("fail"),
    skipped: count("skip"),
    specFailures: checks.filter((c) => c.status === "fail" && spec.has(c.kind)).length,
  };
}

export function summaryText(summary: ConformanceSummary): string {
  const verdict =
    summary.failed === 0
      ? "The client conforms."
      : `The client fails ${summary.failed} check${summary.failed === 1 ? "" : "s"}.`;
  return `Terminal conformance: ${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped. ${verdict}\n`;
}

export async function writeReport(path: string, report: ConformanceReport): Promise<void> {
  await writeFile(path, `${JSON.stringify(report, null, 2)}\n`, "utf8");
}
