import { realpath } from "node:fs/promises";
import path from "node:path";
import { LocalTerminalProvider, type TerminalHostLike } from "acp-process";
import type { ProviderCreateParams } from "acp-process/provider";
import { errnoCodeOf } from "acp-terminal/internal";

/**
 * The local provider, gated: every terminal is checked here, whatever tool asked for it, so no
 * tool surface (today's or one added later) can start a command in a directory outside the
 * workspace. The approval policy is the host's `authorize` hook (see `authorizeHook`); where it
 * can never approve a stdin write (`--allow`: patterns approve starts only; no one to ask),
 * commands start with stdin closed, so one that reads it gets end-of-file instead of waiting.
 * A refused create fails the run with the reason. The workspace bounds where commands start, not
 * what they touch: it is not a sandbox.
 */
export class WorkspaceProvider extends LocalTerminalProvider {
  constructor(
    host: TerminalHostLike,
    /** Absolute and resolved (no symlinks): `realpath` of the `--workspace` directory. */
    readonly workspace: string,
    /** The host's policy can never approve a stdin write (no one to ask, not --yes): start commands with stdin closed. */
    private readonly closeStdin: boolean,
    /** How a cwd is resolved before the check: `realpath` here; lexically for another machine's. */
    private readonly resolve: (cwd: string) => Promise<string> = realpath,
  ) {
    super(host, { owner: { connectionId: "mcp", sessionId: "mcp" } });
  }

  override async create(params: ProviderCreateParams): Promise<string> {
    const cwd = params.cwd === undefined ? this.workspace : await this.inside(params.cwd);
    return super.create({ ...params, cwd, ...(this.closeStdin ? { stdin: false } : {}) });
  }

  /** `cwd` resolved through symlinks, when that is the workspace or below it. */
  private async inside(cwd: string): Promise<string> {
    if (!path.isAbsolute(cwd)) {
      throw new Error(
        `refused: the working directory must be an absolute path inside the workspace ${this.workspace}, received ${JSON.stringify(cwd)}`,
      );
    }
    let resolved: string;
    try {
      resolved = await this.resolve(cwd);
    } catch (error) {
      throw new Error(
        `the working directory ${cwd} does not exist or cannot be read (${errnoCodeOf(error) ?? String(error)})`,
      );
    }
    const relative = path.relative(this.workspace, resolved);
    if (
      relative === "" ||
      (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
    ) {
      return resolved;
    }
    throw new Error(
      `refused: the working directory ${cwd} is outside the workspace ${this.workspace}; use a directory inside it, or restart the server with --workspace set higher`,
    );
  }
}
