/** Starting `acp-terminal mcp` for the MCP tests, marked so that "nothing left running" is exact. */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MARK_VARIABLE } from "../fixtures/demo-processes.js";
import { connectStdio, type ClientKind, type McpTestClient } from "./mcp-clients.js";
import { until, withDeadline } from "./until.js";

export const CLI = fileURLToPath(
  new URL("../../packages/acp-terminal-cli/dist/main.js", import.meta.url),
);

/** The environment a marked server (and every command it runs) gets. */
export function markedEnv(mark: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    [MARK_VARIABLE]: mark,
  };
}

/** `acp-terminal mcp <args>` over stdio, through the `acp-terminal` CLI's dispatch. */
export function connectServer(
  kind: ClientKind,
  args: string[],
  mark: string,
): Promise<McpTestClient> {
  return connectStdio(kind, {
    command: process.execPath,
    args: [CLI, "mcp", ...args],
    env: markedEnv(mark),
  });
}

/** Pids of live processes whose command line contains `needle` (Linux /proc). */
export function pidsWithArg(needle: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return (
          readFileSync(`/proc/${pid}/cmdline`, "latin1").includes(needle) &&
          !/\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))
        );
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

export interface HttpServerProcess {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  /** SIGTERM, then waits for the exit code. */
  stop(): Promise<number | null>;
}

/** `acp-terminal mcp --http ...` as a child process; resolves with the URL it prints once listening. */
export async function startHttpServer(
  args: string[],
  mark: string,
  env: Record<string, string> = {},
  launcher: readonly string[] = [process.execPath, CLI, "mcp"],
): Promise<HttpServerProcess> {
  const [command, ...prefix] = launcher;
  const child = spawn(command!, [...prefix, ...args], {
    env: { ...markedEnv(mark), ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  const url = await withDeadline(
    Promise.race([
      until(() => /at (http:\/\/\S+\/mcp)/.exec(stderr)?.[1], {
        timeoutMs: 10_000,
        message: "the server's listening line",
      }),
      exited.then((code) =>
        Promise.reject(new Error(`the server exited with ${code} before listening: ${stderr}`)),
      ),
    ]),
    11_000,
    "the HTTP server to listen",
  );
  return {
    url,
    child,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
      }
      return withDeadline(exited, 10_000, "the HTTP server to exit after SIGTERM");
    },
  };
}
