import { existsSync, realpathSync, rmdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { TerminalError } from "../core/errors.js";
import { bubblewrapArgv, HIDDEN_DIRECTORIES, isHidden, isInside } from "./bubblewrap.js";
import { bubblewrapSupport } from "./bubblewrap-support.js";
import type { ResolvedSandboxOptions, SandboxMode } from "./sandbox-options.js";

/**
 * The sandbox commands run in, as a host and its capability state it: `mode` is what is in
 * force, `"unavailable"` when one was asked for and cannot be had here (then no command runs).
 */
export interface SandboxStatus {
  mode: SandboxMode | "unavailable";
  /** The mode asked for (differs from `mode` only when that is `"unavailable"`). */
  requested: SandboxMode;
  /** Commands can reach the network and local sockets (always with `off`). */
  network: boolean;
  /** What enforces it: `"bubblewrap"`, or null with `off` and `unavailable`. */
  mechanism: "bubblewrap" | null;
  /** The directory workspace-write may write to. */
  workspace: string;
  /** Why it is unavailable, and what to do. */
  reason?: string;
}

/** One host's sandbox: its status, and the words that put a command in it. */
export class Sandbox {
  #status: SandboxStatus | undefined;
  #workspace: string | undefined;
  /** The empty `.git` directories the sandbox's mounts may have left (see SandboxPlace.gitGuards). */
  readonly #guards = new Set<string>();

  constructor(private readonly options: ResolvedSandboxOptions) {}

  get mode(): SandboxMode {
    return this.options.mode;
  }

  /** Found out on first use (a sandboxed mode probes bubblewrap once per process, ~10 ms). */
  status(): SandboxStatus {
    this.#status ??= this.#detect();
    return this.#status;
  }

  #detect(): SandboxStatus {
    const { mode, network, workspace } = this.options;
    const base = { requested: mode, network, workspace };
    if (mode === "off") {
      return { ...base, mode, mechanism: null };
    }
    const support = bubblewrapSupport();
    return support.available
      ? { ...base, mode, mechanism: "bubblewrap" }
      : { ...base, mode: "unavailable", mechanism: null, reason: support.reason };
  }

  /**
   * The words to run a command in `cwd` with (empty with `off`). Throws `spawn_failed` when the
   * sandbox cannot be had (nothing runs outside a sandbox that was asked for), and when `cwd` is
   * in a directory the sandbox hides and outside the workspace.
   */
  prefixFor(cwd: string): string[] {
    const { mode, network } = this.options;
    if (mode === "off") {
      return [];
    }
    const status = this.status();
    const support = bubblewrapSupport();
    if (!support.available) {
      throw new TerminalError(
        "spawn_failed",
        `Not started: the host runs commands in a ${status.requested} sandbox, which cannot be had here: ${status.reason}`,
        { sandbox: status.requested },
      );
    }
    const workspace = (this.#workspace ??= realOrSame(this.options.workspace));
    const realCwd = realOrSame(cwd);
    if (isHidden(realCwd) && !isInside(realCwd, workspace)) {
      throw new TerminalError(
        "spawn_failed",
        `Not started: the cwd ${cwd} is in ${HIDDEN_DIRECTORIES.join(", ")}, which the ${mode} sandbox replaces with empty private ones; run it in the workspace (${workspace}) or elsewhere`,
        { cwd },
      );
    }
    const git = mode === "workspace-write" ? gitDirsOf(realCwd, workspace) : EMPTY_GIT_DIRS;
    for (const guard of git.missing) {
      this.#guards.add(guard);
    }
    return bubblewrapArgv(support.bwrap, support.features, {
      mode,
      workspace,
      network,
      cwd: realCwd,
      gitDirs: git.present,
      gitGuards: git.missing,
    });
  }

  /**
   * The words that run a command confined, whatever this host's mode: bubblewrap's read-only
   * sandbox without network (nothing writable but a private /tmp). `scope` (the session's cwd),
   * or the cwd when it is elsewhere, stays visible when it lies in a directory the sandbox hides.
   * Throws `spawn_failed` saying why when bubblewrap cannot be had.
   */
  confinedPrefixFor(cwd: string, scope: string): string[] {
    const support = bubblewrapSupport();
    if (!support.available) {
      throw new TerminalError(
        "spawn_failed",
        `Not started: it was approved to run confined (in a read-only sandbox), which cannot be had here: ${support.reason}`,
        { sandbox: "read-only" },
      );
    }
    const realCwd = realOrSame(cwd);
    const realScope = realOrSame(scope);
    return bubblewrapArgv(support.bwrap, support.features, {
      mode: "read-only",
      workspace: isInside(realCwd, realScope) ? realScope : realCwd,
      network: false,
      cwd: realCwd,
      gitDirs: [],
      gitGuards: [],
    });
  }

  /**
   * Removes the empty `.git` directories the sandbox's mounts left behind (once its commands are
   * gone: the host's dispose). One that is no longer empty (the user ran `git init` there since)
   * stays.
   */
  removeGuards(): void {
    for (const guard of this.#guards) {
      try {
        rmdirSync(guard); // only ever removes an empty directory
      } catch {
        // not there, not empty, or a mount point still: it is the user's now, or still in use
      }
    }
    this.#guards.clear();
  }
}

const EMPTY_GIT_DIRS = { present: [], missing: [] };

/**
 * The `.git` entries of `cwd` and each parent inside `workspace`, the workspace's own included
 * (`present`), and where there is none (`missing`): what git would find there as a repository.
 */
function gitDirsOf(cwd: string, workspace: string): { present: string[]; missing: string[] } {
  const present: string[] = [];
  const missing: string[] = [];
  let dir = isInside(cwd, workspace) ? cwd : workspace;
  for (;;) {
    const git = join(dir, ".git");
    (existsSync(git) ? present : missing).push(git);
    if (dir === workspace || dir === dirname(dir)) {
      return { present: present.reverse(), missing: missing.reverse() };
    }
    dir = dirname(dir);
  }
}

/** A path through its symlinks, or as given when it does not exist (the spawn then says so). */
function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path; // missing: the spawn reports the missing cwd itself
  }
}

/** One line saying where commands may write and whether they reach the network, for `--verbose` and the capability's readers. */
export function describeSandbox(status: SandboxStatus): string {
  const network = status.network
    ? "network allowed, and the host's abstract unix sockets (X11, some D-Bus buses), which belong to the network namespace"
    : "no network (loopback only)";
  switch (status.mode) {
    case "off":
      return "sandbox: off (commands can write wherever the user can and reach the network: approval is the only check)";
    case "unavailable":
      return `sandbox: unavailable (${status.requested} was asked for, but ${status.reason}; no command runs)`;
    case "read-only":
      return `sandbox: read-only (bubblewrap: nothing is writable but a private /tmp; ${network})`;
    case "workspace-write":
      return `sandbox: workspace-write (bubblewrap: writable: ${status.workspace}, not its .git nor that of the cwd's repository, nor a new .git from the cwd up to it, and a private /tmp; ${network})`;
  }
}
