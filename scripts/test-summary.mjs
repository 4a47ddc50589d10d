#!/usr/bin/env node
// Prints vitest's totals as one plain closing line ("Tests: N passed, N failed, N skipped") from the
// JSON report that vitest.config.ts writes, so CI logs state plainly how many tests ran.
import { readFileSync } from "node:fs";

const reportPath = new URL("../.vitest-results.json", import.meta.url);
let report;
try {
  report = JSON.parse(readFileSync(reportPath, "utf8"));
} catch (error) {
  console.error(
    `No vitest report at ${reportPath.pathname} (${/** @type {Error} */ (error).message}); run the tests first.`,
  );
  process.exit(1);
}
const skipped = report.numPendingTests + report.numTodoTests;
console.log(
  `Tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`,
);
