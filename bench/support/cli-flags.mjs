// Flags a benchmark passes to a build of the CLI it runs, whatever its age.
import { spawnSync } from "node:child_process";

/**
 * `["--agent-stderr"]` for a CLI that logs the agent's stderr to a file by default (the
 * benchmarks read the agent's BENCH lines on the CLI's stderr), `[]` for an older build, which
 * shows it anyway and does not know the flag.
 * @param {string} cli the CLI's main.js
 * @returns {string[]}
 */
export function agentStderrFlags(cli) {
  const known = asked.get(cli);
  if (known !== undefined) {
    return known;
  }
  const help = spawnSync(process.execPath, [cli, "--help"], { encoding: "utf8" }).stdout ?? "";
  const flags = help.includes("--agent-stderr") ? ["--agent-stderr"] : [];
  asked.set(cli, flags);
  return flags;
}

/** @type {Map<string, string[]>} */
const asked = new Map();
