/** Starting `acp-terminal mcp` for the MCP tests, marked so that "nothing left running" is exact. */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MARK_VARIABLE } from "../fixtures/demo-processes.js";
import { connectStdio, type ClientKind, type McpTestClient } from "./mcp-clients.js";

export const CLI = fileURLToPath(new URL("../../packages/acp-terminal/dist/cli/main.js", import.meta.url));

/** The environment a marked server (and every command it runs) gets. */
export function markedEnv(mark: string): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", [MARK_VARIABLE]: mark };
}

/** `acp-terminal mcp <args>` over stdio, through the `acp-terminal` CLI's dispatch. */
export function connectServer(kind: ClientKind, args: string[], mark: string): Promise<McpTestClient> {
  return connectStdio(kind, { command: process.execPath, args: [CLI, "mcp", ...args], env: markedEnv(mark) });
}

/** Pids of live processes whose command line contains `needle` (Linux /proc). */
export function pidsWithArg(needle: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "latin1").includes(needle) && !/\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}
