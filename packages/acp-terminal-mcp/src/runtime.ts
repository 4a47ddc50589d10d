import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { ProcessManager, type SchedulerLimits } from "acp-process";
import { TerminalHost, type TerminalHostOptions } from "acp-terminal";
import { authorizeHook, type ApprovalPolicy } from "./policy.js";
import { WorkspaceProvider } from "./workspace-provider.js";
import { errnoCodeOf } from "acp-terminal/internal";

export interface RuntimeOptions {
  /** Directory commands start in and may not leave (their cwd); resolved through symlinks. */
  workspace: string;
  policy: ApprovalPolicy;
  /** Runs executing at once (more wait in a queue). */
  maxConcurrentRuns?: number;
  /** Characters of output a tool answer carries (tail) and a run retains. */
  maxOutputChars?: number;
  /** Bytes of output the host keeps per terminal (tail). */
  outputByteLimit?: number;
  /** The commands' environment (TerminalHost's `env` option). Default: this process's. */
  env?: TerminalHostOptions["env"];
  /** Where commands run (TerminalHost's `on`): the workspace is then a path there. */
  on?: string;
}

/** One TerminalHost and ProcessManager shared by every MCP connection and request of this server. */
export interface Runtime {
  readonly host: TerminalHost;
  readonly manager: ProcessManager;
  readonly workspace: string;
  /** Kills every run and terminal; idempotent. */
  dispose(): Promise<void>;
}

export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  // Elsewhere, the workspace is that machine's path: not resolved here (a container's is mounted).
  const remote = options.on !== undefined && !options.on.startsWith("docker-image://");
  const workspace = remote
    ? path.resolve(options.workspace)
    : await resolveWorkspace(options.workspace);
  const on =
    options.on?.startsWith("docker-image://") && !/[?&]workspace=/.test(options.on)
      ? `${options.on}${options.on.includes("?") ? "&" : "?"}workspace=${encodeURIComponent(workspace)}`
      : options.on;
  const host = new TerminalHost({
    ...(on !== undefined ? { on } : {}),
    cwd: workspace,
    authorize: authorizeHook(options.policy),
    ...(options.env !== undefined ? { env: options.env } : {}),
    ...(options.outputByteLimit !== undefined
      ? {
          defaultOutputByteLimit: options.outputByteLimit,
          maxOutputByteLimit: options.outputByteLimit,
        }
      : {}),
  });
  const limits: Partial<SchedulerLimits> =
    options.maxConcurrentRuns !== undefined
      ? {
          maxConcurrentRuns: options.maxConcurrentRuns,
          maxConcurrentPerSession: options.maxConcurrentRuns,
        }
      : {};
  const manager = new ProcessManager({
    provider: new WorkspaceProvider(
      host,
      workspace,
      options.policy.kind !== "yes",
      remote ? async (cwd) => path.resolve(cwd) : undefined,
    ),
    limits,
    ...(options.maxOutputChars !== undefined ? { maxOutputChars: options.maxOutputChars } : {}),
  });
  let disposing: Promise<void> | undefined;
  return {
    host,
    manager,
    workspace,
    dispose: () => (disposing ??= manager.dispose().finally(() => host.dispose())),
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
