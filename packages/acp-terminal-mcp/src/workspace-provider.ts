import { closeSync, constants, openSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";
import { LocalTerminalProvider, type TerminalHostLike } from "acp-process";
import type { ProviderCreateParams } from "acp-process/provider";
import { errnoCodeOf } from "acp-terminal/internal";
import { CALL_LABEL, createScope, type CallDirectory } from "./mcp-call.js";

/** Whether a directory can be handed to a child as `/proc/<this pid>/fd/N` (Linux with /proc). */
const FD_PATHS = process.platform === "linux";

/**
 * The local provider, gated: every terminal is checked here, whatever tool asked for it, so no
 * tool surface (today's or one added later) can start a command in a directory outside the
 * workspace. The check cannot be raced: the directory is opened once, the path the kernel gives
 * for the open directory is checked, and the command starts in that open directory
 * (`/proc/<this pid>/fd/N`, which the child resolves to the same directory before it executes,
 * whichever process forked it: this one, or acp-terminal's launcher), so
 * swapping a path component for a symlink between the check and the start changes nothing. The
 * directory stays open until the command exits (see the end of `create`).
 *
 * The approval policy is the host's `authorize` hook; it learns which MCP call starts the command
 * (and the directory's real path) from `createScope`, set here around the host's create. Where the
 * policy can never approve a stdin write, commands start with stdin closed, so one that reads it
 * gets end-of-file instead of waiting. A refused create fails the run with the reason. The
 * workspace bounds where commands start, not what they touch: it is not a sandbox.
 */
export class WorkspaceProvider extends LocalTerminalProvider {
  constructor(
    host: TerminalHostLike,
    /** Absolute and resolved (no symlinks): `realpath` of the `--workspace` directory. */
    readonly workspace: string,
    /** The host's policy can never approve a stdin write: start commands with stdin closed. */
    private readonly closeStdin: boolean,
    /** The MCP calls in flight, to tell the approval hook which one starts a command. */
    private readonly calls?: CallDirectory,
    /**
     * Where the commands run (`--on`): `local`; `mounted` (a container with the workspace mounted
     * at the same path: checked here by the open directory, started by its path); `remote`
     * (another machine's paths: checked lexically, nothing here to open).
     */
    private readonly where: "local" | "mounted" | "remote" = "local",
  ) {
    super(host, { owner: { connectionId: "mcp", sessionId: "mcp" } });
  }

  override async create(params: ProviderCreateParams): Promise<string> {
    const call = this.calls?.get(params.labels?.[CALL_LABEL]);
    const { labels: _labels, ...rest } = params;
    const request = { ...rest, ...(this.closeStdin ? { stdin: false } : {}) };
    const requested = params.cwd ?? this.workspace;
    if (!path.isAbsolute(requested)) {
      throw new Error(
        `refused: the working directory must be an absolute path inside the workspace ${this.workspace}, received ${JSON.stringify(requested)}`,
      );
    }
    if (this.where === "remote") {
      const actual = path.resolve(requested);
      this.assertInside(requested, actual);
      return createScope.run({ call }, () => super.create({ ...request, cwd: actual }));
    }
    // Synchronous: three local system calls of a few microseconds, where the promise API took a
    // thread-pool round trip each (~0.4 ms of every command's start).
    let directory: number;
    try {
      directory = openSync(requested, constants.O_RDONLY | constants.O_DIRECTORY);
    } catch (error) {
      throw new Error(
        `the working directory ${requested} does not exist, is not a directory or cannot be read (${errnoCodeOf(error) ?? String(error)})`,
      );
    }
    let terminalId: string;
    let keptOpen = false;
    try {
      // This process's descriptor by its pid: a command forked by the launcher has no fd N of its own.
      const spawn = `/proc/${process.pid}/fd/${directory}`;
      const actual = FD_PATHS ? readlinkSync(spawn) : realpathSync(requested);
      this.assertInside(requested, actual);
      const cwd = FD_PATHS && this.where === "local" ? { spawn, shown: actual } : undefined;
      terminalId = await createScope.run({ call, ...(cwd ? { cwd } : {}) }, () =>
        super.create({ ...request, cwd: cwd?.spawn ?? actual }),
      );
      keptOpen = cwd !== undefined;
    } finally {
      if (!keptOpen) {
        closeSync(directory);
      }
    }
    // The command is given `PWD=/proc/<pid>/fd/N` (under a PTY, as node-pty does) and bash takes it
    // as its directory, resolving it again for `pwd` or `cd "$PWD"`: closed now, N could soon name the
    // next directory this process opens (one outside, being refused). It stays open until the exit.
    if (keptOpen) {
      void this.waitForExit(terminalId)
        .catch(() => {})
        .finally(() => closeSync(directory));
    }
    return terminalId;
  }

  private assertInside(requested: string, actual: string): void {
    const relative = path.relative(this.workspace, actual);
    if (
      relative === "" ||
      (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
    ) {
      return;
    }
    throw new Error(
      `refused: the working directory ${requested} is outside the workspace ${this.workspace}; use a directory inside it, or restart the server with --workspace set higher`,
    );
  }
}
