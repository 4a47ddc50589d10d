import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import {
  loginShellEnvironment,
  ProcessManager,
  type RunSnapshot,
  type SchedulerLimits,
} from "acp-process";
import { TerminalHost, type AuthorizeRequest, type TerminalHostOptions } from "acp-terminal";
import { elicitationAsker, refuseTooLong } from "./elicit-approval.js";
import { CallDirectory, createScope } from "./mcp-call.js";
import { authorizeHook, type ApprovalFlags } from "./policy.js";
import { waitsOnStdin } from "./tasks/stdin-wait.js";
import { WorkspaceProvider } from "./workspace-provider.js";
import { errnoCodeOf } from "acp-terminal/internal";

export interface RuntimeOptions {
  /** Directory commands start in and may not leave (their cwd); resolved through symlinks. */
  workspace: string;
  policy: ApprovalFlags;
  /** Runs executing at once (more wait in a queue). */
  maxConcurrentRuns?: number;
  /** Characters of output a tool answer carries (tail) and a run retains. */
  maxOutputChars?: number;
  /** Bytes of output the host keeps per terminal (tail). */
  outputByteLimit?: number;
  /** The commands' environment (TerminalHost's `env` option). Default: this process's. */
  env?: TerminalHostOptions["env"];
  /**
   * Commands get the login shell's environment (nvm, pyenv, direnv; acp-process's
   * `loginShellEnvironment`, secrets left out), snapshotted once at start (at most 5 s) and laid
   * over the host's base environment, so that requests carry no variables an --allow pattern
   * would refuse. Default true; not with `env: "empty"`.
   */
  loginEnvironment?: boolean;
  /** Where commands run (TerminalHost's `on`): the workspace is then a path there. */
  on?: string;
}

/** One TerminalHost and ProcessManager shared by every MCP connection and request of this server. */
export interface Runtime {
  readonly host: TerminalHost;
  readonly manager: ProcessManager;
  readonly workspace: string;
  /** The MCP calls in flight: the approval hook asks through the one that starts a command. */
  readonly calls: CallDirectory;
  /** Whether a run's command waits for input on its stdin (Linux /proc; false elsewhere). */
  waitsForInput(run: RunSnapshot): Promise<boolean>;
  /** Kills every run and terminal; idempotent. */
  dispose(): Promise<void>;
}

/**
 * How long a terminal's create may take: it includes the approval question when the policy asks
 * through the client (a person answering), so far longer than a spawn.
 */
const CREATE_WAIT_MS = 15 * 60_000;
/** Runs kept (finished ones beyond this are forgotten oldest first). */
const MAX_RUNS = 200;

export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  // Elsewhere, the workspace is that machine's path: not resolved here (a container's is mounted).
  const where =
    options.on === undefined
      ? "local"
      : options.on.startsWith("docker-image://")
        ? "mounted"
        : "remote";
  const [workspace, login] = await Promise.all([
    where === "remote" ? path.resolve(options.workspace) : resolveWorkspace(options.workspace),
    options.loginEnvironment === false || options.env === "empty" || where !== "local"
      ? null
      : loginShellEnvironment({ timeoutMs: 5000 }),
  ]);
  const on =
    options.on?.startsWith("docker-image://") && !/[?&]workspace=/.test(options.on)
      ? `${options.on}${options.on.includes("?") ? "&" : "?"}workspace=${encodeURIComponent(workspace)}`
      : options.on;
  const env = withLogin(options.env, login);
  const calls = new CallDirectory();
  const approve = authorizeHook(options.policy, elicitationAsker(), refuseTooLong);
  const host = new TerminalHost({
    ...(on !== undefined ? { on } : {}),
    cwd: workspace,
    // The hook judges the directory by its path, not by the `/proc/<pid>/fd/N` the command starts in.
    authorize: (request) => approve(shownRequest(request)),
    sandbox: {
      mode: options.policy.sandbox,
      workspace,
      network: options.policy.sandboxNetwork,
    },
    ...(env !== undefined ? { env } : {}),
    ...(options.outputByteLimit !== undefined
      ? {
          defaultOutputByteLimit: options.outputByteLimit,
          maxOutputByteLimit: options.outputByteLimit,
        }
      : {}),
  });
  const sandbox = host.sandbox;
  if (sandbox.mode === "unavailable") {
    await host.dispose();
    throw new Error(
      `--sandbox ${sandbox.requested} cannot be had here: ${sandbox.reason}. Nothing was started; pass --sandbox off to run commands without a sandbox`,
    );
  }
  const limits: Partial<SchedulerLimits> =
    options.maxConcurrentRuns !== undefined
      ? {
          maxConcurrentRuns: options.maxConcurrentRuns,
          maxConcurrentPerSession: options.maxConcurrentRuns,
        }
      : {};
  const manager = new ProcessManager({
    provider: new WorkspaceProvider(host, workspace, !options.policy.yes, calls, where),
    limits,
    maxRuns: MAX_RUNS,
    tuning: { callWaitMs: CREATE_WAIT_MS },
    ...(options.maxOutputChars !== undefined ? { maxOutputChars: options.maxOutputChars } : {}),
  });
  let disposing: Promise<void> | undefined;
  return {
    host,
    manager,
    workspace,
    calls,
    waitsForInput: async (run) => {
      const pgid = run.terminalId === null ? undefined : host.info(run.terminalId)?.pid;
      return pgid !== undefined && (await waitsOnStdin(pgid));
    },
    dispose: () => (disposing ??= manager.dispose().finally(() => host.dispose())),
  };
}

/** The request with the directory the provider opened named by its path (see WorkspaceProvider). */
function shownRequest(request: AuthorizeRequest): AuthorizeRequest {
  const cwd = createScope.getStore()?.cwd;
  return cwd && request.cwd === cwd.spawn ? { ...request, cwd: cwd.shown } : request;
}

/** The host's base environment with the login shell's laid over it. */
function withLogin(
  option: TerminalHostOptions["env"],
  login: Record<string, string> | null,
): TerminalHostOptions["env"] {
  if (!login) {
    return option;
  }
  return (base) => {
    const start: Record<string, string> = {};
    for (const [name, value] of Object.entries(
      typeof option === "function" ? option(base) : base,
    )) {
      if (value !== undefined) {
        start[name] = value;
      }
    }
    return { ...start, ...login };
  };
}

async function resolveWorkspace(dir: string): Promise<string> {
  let resolved: string;
  try {
    resolved = await realpath(dir);
  } catch (error) {
    throw new Error(
      `Invalid --workspace: ${dir} does not exist or cannot be read (${errnoCodeOf(error) ?? String(error)})`,
    );
  }
  if (!(await stat(resolved)).isDirectory()) {
    throw new Error(`Invalid --workspace: ${dir} is not a directory`);
  }
  return resolved;
}
