import type { Implementation } from "@agentclientprotocol/sdk/experimental/v2";
import type { V2CheckResult } from "./base/check.js";
import type { CancelRecord } from "./base/terminals.js";

export interface V2ConformanceSummary {
  passed: number;
  failed: number;
  notExercised: number;
  skipped: number;
  /** Failed `must` checks: the client breaks the spec. */
  specFailures: number;
}

/** The v2 battery's report: the v1 shape plus `protocol`, every `terminal/cancel`, and timing. */
export interface V2ConformanceReport {
  protocol: "v2";
  client: Implementation | null;
  checks: V2CheckResult[];
  /** Every `terminal/cancel` received, in order (at most MAX_CANCEL_RECORDS). */
  cancels: CancelRecord[];
  /** Cancels received beyond the recorded ones. */
  cancelsDropped: number;
  /** Wall time of the battery. */
  durationMs: number;
  summary: V2ConformanceSummary;
}

export function summarizeV2(checks: readonly V2CheckResult[]): V2ConformanceSummary {
  const count = (status: V2CheckResult["status"]) =>
    checks.filter((c) => c.status === status).length;
  return {
    passed: count("pass"),
    failed: count("fail"),
    notExercised: count("not-exercised"),
    skipped: count("skip"),
    specFailures: checks.filter((c) => c.status === "fail" && c.kind === "must").length,
  };
}

export function summaryTextV2(summary: V2ConformanceSummary): string {
  const verdict =
    summary.failed === 0
      ? summary.notExercised === 0
        ? "The client conforms."
        : "No failures; some checks were not exercised."
      : `The client fails ${summary.failed} check${summary.failed === 1 ? "" : "s"}.`;
  return `Terminal conformance (ACP v2): ${summary.passed} passed, ${summary.failed} failed, ${summary.notExercised} not exercised, ${summary.skipped} skipped. ${verdict}\n`;
}
