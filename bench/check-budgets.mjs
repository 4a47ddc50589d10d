#!/usr/bin/env node
/**
 * On demand, not in CI: runs bench/process-mcp-floor.mjs and compares the MCP server's `exec`
 * latency over a bare spawn and its RSS growth through a 100 MB line with their budgets, then
 * says which one broke (exit 1) or that both hold (exit 0). The server's RSS at rest is printed
 * beside them (its budget is below what the MCP SDK alone holds here: see bench/README.md).
 * A loaded machine moves the latency: run it when the machine is quiet, or more than once.
 * Knobs: those of process-mcp-floor.mjs (BENCH_CLI, BENCH_ITERATIONS, ...).
 * Usage (after `corepack pnpm build`): node bench/check-budgets.mjs
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const BENCH = fileURLToPath(new URL("./process-mcp-floor.mjs", import.meta.url));
const MB = 1_000_000;
const BUDGETS = [
  {
    key: "execOverSpawnMs",
    what: "MCP exec of true, p50 over a bare spawn",
    limit: 3,
    show: (v) => `${v.toFixed(2)} ms`,
  },
  {
    key: "lineGrowthBytes",
    what: "MCP server RSS growth through one 100 MB line",
    limit: 16 * MB,
    strict: true,
    show: (v) => `${(v / MB).toFixed(1)} MB`,
  },
];

const dir = mkdtempSync(path.join(tmpdir(), "check-budgets-"));
const json = path.join(dir, "figures.json");
try {
  const run = spawnSync(process.execPath, [BENCH], {
    env: {
      ...process.env,
      BENCH_JSON: json,
      BENCH_PARTS: process.env.BENCH_PARTS ?? "exec,line,rest",
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (run.status !== 0) {
    console.error(`check-budgets: the benchmark itself failed (exit ${run.status ?? run.signal})`);
    process.exit(2);
  }
  const figures = JSON.parse(readFileSync(json, "utf8"));
  const broken = [];
  console.log(
    `\ncheck-budgets (load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}):`,
  );
  for (const budget of BUDGETS) {
    const value = figures[budget.key];
    const held =
      value !== undefined && (budget.strict ? value < budget.limit : value <= budget.limit);
    if (!held) broken.push(budget.what);
    console.log(
      `  ${held ? "held " : "BROKE"}  ${budget.what}: ${value === undefined ? "not measured" : budget.show(value)} (budget ${budget.strict ? "<" : "<="} ${budget.show(budget.limit)})`,
    );
  }
  if (figures.restBytes !== undefined) {
    console.log(`  info   MCP server RSS at rest: ${(figures.restBytes / MB).toFixed(1)} MB`);
  }
  if (broken.length > 0) {
    console.log(`check-budgets: broken: ${broken.join("; ")}`);
    process.exit(1);
  }
  console.log("check-budgets: every budget held");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
