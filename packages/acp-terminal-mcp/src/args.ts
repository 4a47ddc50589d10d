import { parseArgs } from "node:util";
import {
  APPROVAL_FLAG_OPTIONS,
  approvalFlagsHelp,
  approvalFlags,
  type ApprovalFlags,
} from "acp-terminal/approval";
import { isToolSetName, TOOL_SET_NAMES, type ToolSetName } from "./tool-sets.js";
import { parseListenAddress, type ListenAddress } from "./listen-address.js";
import { SANDBOX_WITH_ON } from "acp-terminal/approval";
import { checkExecutorTarget } from "acp-terminal";
import { messageOf } from "acp-terminal/internal";

export const TOKEN_ENV = "ACP_TERMINAL_MCP_TOKEN";

export interface McpOptions {
  /** As given (absolute); resolved through symlinks when the server starts. */
  workspace: string;
  tools: ToolSetName;
  /** `--yes`, `--allow`, `--sandbox`, `--sandbox-network`: acp-terminal run's flags and rules. */
  policy: ApprovalFlags;
  maxConcurrentRuns?: number;
  maxOutputChars?: number;
  outputByteLimit?: number;
  progressIntervalMs: number;
  /** Streamable HTTP instead of stdio. */
  http?: ListenAddress;
  /** Bearer token HTTP requests must carry; when absent, the server makes one. */
  token?: string;
  /** Where to write the token (mode 0600). */
  tokenFile?: string;
  /** Commands get the login shell's environment (nvm, pyenv...; default true; `--no-login-env`: false). */
  loginEnvironment?: boolean;
  /** `--on`: where commands run when not here (the workspace is then a path there). */
  on?: string;
}

export type ParsedMcpCommand =
  { kind: "help" } | { kind: "serve"; options: McpOptions } | { kind: "error"; message: string };

export const MCP_USAGE = `Usage:
  acp-terminal mcp [options]          (the same as: acp-terminal-mcp [options])

Serves acp-process's command tools as an MCP server, over stdio (default) or Streamable HTTP,
running commands in a local TerminalHost.

Options:
  --workspace DIR          commands start here; a working directory outside it is refused
                           (default: the current directory)
  --tools SET              exec: exec + process (default); process: process.run, process.monitor,
                           process.kill, process.list, process.logs, process.wait; shell: the
                           shell action API; unified: Codex's exec_command + write_stdin
                           (+ read_output)
${approvalFlagsHelp(27)}
                           Without --yes or a matching --allow, a command is asked through the
                           client (MCP elicitation) where it can be, else refused.
  --max-runs N             commands running at once; more wait in a queue (default 16)
  --max-output-chars N     characters of output an answer carries (default 200000)
  --output-limit BYTES     bytes of output kept per command, the tail (default 1048576)
  --progress-interval S    seconds between progress notifications of a long call (default 1)
  --no-login-env           run commands with this process's environment, not the login shell's
                           (by default it is snapshotted once: nvm, pyenv, direnv; secrets left out)
  --http HOST:PORT         serve MCP Streamable HTTP at http://HOST:PORT/mcp instead of stdio
  --token TOKEN            the bearer token every HTTP request must carry (or env ${TOKEN_ENV});
                           without one the server makes a random token and prints how to pass it
  --token-file FILE        also write the token to FILE, readable by you only (mode 0600);
                           removed when the server stops
  --on WHERE               run the commands elsewhere: ssh://[user@]host[:port] (as ssh resolves
                           it), docker://CONTAINER or docker-image://IMAGE (a container, the
                           workspace mounted at the same path); the workspace is a path there,
                           checked without resolving symlinks. Needs perl there.
  --help, -h               this help
`;

/** The flags of `mcp`, as node:util's parseArgs reads them. */
const MCP_FLAGS = {
  workspace: { type: "string" },
  tools: { type: "string", default: "exec" },
  ...APPROVAL_FLAG_OPTIONS,
  "max-runs": { type: "string" },
  "max-output-chars": { type: "string" },
  "output-limit": { type: "string" },
  "progress-interval": { type: "string" },
  http: { type: "string" },
  token: { type: "string" },
  "token-file": { type: "string" },
  "no-login-env": { type: "boolean", default: false },
  on: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** Parses the arguments after `mcp`. Never throws: errors come back as values. */
export function parseMcpCommand(
  argv: string[],
  cwd: string,
  resolvePath: (base: string, p: string) => string,
  env: NodeJS.ProcessEnv,
): ParsedMcpCommand {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      allowPositionals: false,
      strict: true,
      options: MCP_FLAGS,
    }));
  } catch (error) {
    return { kind: "error", message: messageOf(error) };
  }
  if (values.help) {
    return { kind: "help" };
  }
  if (!isToolSetName(values.tools)) {
    return error(
      `Invalid --tools: expected one of ${TOOL_SET_NAMES.join(", ")}, received ${JSON.stringify(values.tools)}`,
    );
  }
  const policy = approvalFlags(values);
  if (typeof policy === "string") {
    return error(policy);
  }
  const limits = limitFlags(values);
  if (typeof limits === "string") {
    return error(limits);
  }
  const http = httpFlags(values, env);
  if (typeof http === "string") {
    return error(http);
  }
  const onProblem = values.on === undefined ? undefined : checkExecutorTarget(values.on);
  if (onProblem !== undefined) {
    return error(`Invalid --on: ${onProblem}`);
  }
  if (values.on !== undefined && values.on !== "local" && policy.sandbox !== "off") {
    return error(SANDBOX_WITH_ON);
  }
  const { token } = http;
  if (token !== undefined && (token.length < 16 || /\s/.test(token))) {
    return error(
      `Invalid --token: expected at least 16 characters without spaces (e.g. openssl rand -hex 32), received ${token.length} characters`,
    );
  }
  return {
    kind: "serve",
    options: {
      workspace: resolvePath(cwd, values.workspace ?? "."),
      tools: values.tools,
      policy,
      ...limits,
      ...(http.http ? { http: http.http } : {}),
      ...(token !== undefined ? { token } : {}),
      ...(values["token-file"] !== undefined
        ? { tokenFile: resolvePath(cwd, values["token-file"]) }
        : {}),
      ...(values["no-login-env"] ? { loginEnvironment: false } : {}),
      ...(values.on !== undefined && values.on !== "local" ? { on: values.on } : {}),
    },
  };
}

/** --max-runs, --max-output-chars, --output-limit and --progress-interval, or the first error. */
function limitFlags(values: {
  "max-runs"?: string | undefined;
  "max-output-chars"?: string | undefined;
  "output-limit"?: string | undefined;
  "progress-interval"?: string | undefined;
}):
  | Pick<
      McpOptions,
      "maxConcurrentRuns" | "maxOutputChars" | "outputByteLimit" | "progressIntervalMs"
    >
  | string {
  const maxConcurrentRuns = count("--max-runs", values["max-runs"], 1, 1024);
  const maxOutputChars = count("--max-output-chars", values["max-output-chars"], 1000, 5_000_000);
  const outputByteLimit = count("--output-limit", values["output-limit"], 1024, 64 * 1024 * 1024);
  const progressS = values["progress-interval"];
  const progressIntervalMs = progressS === undefined ? 1000 : Math.round(Number(progressS) * 1000);
  for (const value of [maxConcurrentRuns, maxOutputChars, outputByteLimit]) {
    if (typeof value === "string") {
      return value;
    }
  }
  if (
    progressS !== undefined &&
    (progressS.trim() === "" ||
      !Number.isFinite(progressIntervalMs) ||
      progressIntervalMs < 10 ||
      progressIntervalMs > 3_600_000)
  ) {
    return `Invalid --progress-interval: expected seconds from 0.01 to 3600, received ${JSON.stringify(progressS)}`;
  }
  return {
    ...(typeof maxConcurrentRuns === "number" ? { maxConcurrentRuns } : {}),
    ...(typeof maxOutputChars === "number" ? { maxOutputChars } : {}),
    ...(typeof outputByteLimit === "number" ? { outputByteLimit } : {}),
    progressIntervalMs,
  };
}

/** --http with its token (the flag, else the environment) and --token-file, or the first error. */
function httpFlags(
  values: {
    http?: string | undefined;
    token?: string | undefined;
    "token-file"?: string | undefined;
  },
  env: NodeJS.ProcessEnv,
): { http: ListenAddress | undefined; token: string | undefined } | string {
  const http = values.http === undefined ? undefined : parseListenAddress(values.http);
  if (typeof http === "string") {
    return http;
  }
  const token = values.token ?? (env[TOKEN_ENV] || undefined);
  if (token !== undefined && values.http === undefined) {
    return `--token (or ${TOKEN_ENV}) is for --http; a stdio server is reached only by the program that started it`;
  }
  if (values["token-file"] !== undefined && values.http === undefined) {
    return "--token-file is for --http: a stdio server has no token";
  }
  return { http, token };
}

function error(message: string): ParsedMcpCommand {
  return { kind: "error", message };
}

/** An integer flag within [min, max], undefined when absent, or an error message. */
function count(
  flag: string,
  value: string | undefined,
  min: number,
  max: number,
): number | string | undefined {
  if (value === undefined) {
    return undefined;
  }
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < min || n > max) {
    return `Invalid ${flag}: expected an integer from ${min} to ${max}, received ${JSON.stringify(value)}`;
  }
  return n;
}
