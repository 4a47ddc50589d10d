import { realpath, stat } from "node:fs/promises";
import { ProcessManager, type SchedulerLimits } from "acp-process";
import { TerminalHost, type TerminalHostOptions } from "acp-terminal";
import { authorizeHook, type ApprovalFlags } from "./policy.js";
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
  const workspace = await resolveWorkspace(options.workspace);
  const host = new TerminalHost({
    cwd: workspace,
    authorize: authorizeHook(options.policy),
    sandbox: {
      mode: options.policy.sandbox,
      workspace,
      network: options.policy.sandboxNetwork,
    },
    ...(options.env !== undefined ? { env: options.env } : {}),
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
    provider: new WorkspaceProvider(host, workspace, !options.policy.yes),
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
