import { closeSync, constants, lstatSync, openSync, readlinkSync } from "node:fs";
import path from "node:path";
import { errnoCodeOf } from "acp-terminal/internal";

/** Symlinks one walk follows at most, as the kernel does (ELOOP past it). */
export const MAX_SYMLINKS = 40;
/** Bytes of a path the agent may name (PATH_MAX); longer ones are refused before any walk. */
export const MAX_PATH_BYTES = 4096;

/** Whether an open directory can be named as `/proc/self/fd/N` (Linux with /proc). */
const FD_PATHS = process.platform === "linux";
const DIRECTORY_FLAGS =
  constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** An open directory (its fd) and the path the walk reached it by: its real path, no symlink in it. */
export interface HeldDirectory {
  readonly fd: number;
  readonly path: string;
}

/**
 * `name` in the open directory `directory`, as a path whose only component the kernel resolves is
 * `name` (`/proc/self/fd/N` is the open directory itself, whatever its path names by now). Where
 * there is no /proc, its path: then a component swapped meanwhile is followed (not on Linux).
 */
export function inDirectory(directory: HeldDirectory, name: string): string {
  return FD_PATHS ? `/proc/self/fd/${directory.fd}/${name}` : path.join(directory.path, name);
}

/** A walk that could not go on: `code` is the errno that stopped it, `at` the path it was at. */
export class WalkError extends Error {
  constructor(
    readonly code: string,
    readonly at: string,
  ) {
    super(`${code}: ${at}`);
  }
}

/** A directory a walk may start at: held open, with the path it was given by. */
export interface WalkStart {
  readonly directory: HeldDirectory;
  readonly given: string;
}

/**
 * A path walked one name at a time from an open directory, each opened with O_NOFOLLOW relative
 * to the one before (through `/proc/self/fd/N/<name>`), so the kernel never resolves more than
 * one name and never follows a symlink: the walk reads each symlink itself and goes on from its
 * target, and `..` goes to the parent of the directory held. The directory that holds the last
 * name stays open (`directory`), so what is then opened, created or renamed there is in the
 * directory whose path the walk saw, however the path is changed meanwhile (a directory swapped
 * for a symlink to elsewhere, say): `path` is the real path of what is reached. The last name is
 * not looked at: the caller opens it with O_NOFOLLOW and calls `followLast` when it turns out to
 * be a symlink.
 *
 * A walk starts at the longest of `starts` (directories held open by the caller) that the path
 * begins with, by the start's real path or the path it was given by, else at `/`.
 *
 * Its system calls are synchronous: each looks up one name in a directory already open (a few
 * microseconds), where a round trip through libuv's thread pool costs ten times that, per name.
 */
export class PathWalk {
  #current: HeldDirectory;
  /** The current directory is one of the caller's starts: not closed here. */
  #borrowed: boolean;
  #name = "";
  #symlinks = 0;

  private constructor(current: HeldDirectory, borrowed: boolean) {
    this.#current = current;
    this.#borrowed = borrowed;
  }

  /** Walks `given` (absolute) to the directory of its last name; throws a WalkError where it stops. */
  static walk(given: string, starts: readonly WalkStart[]): PathWalk {
    const start = startOf(given, starts);
    const walk = start ? new PathWalk(start.directory, true) : new PathWalk(openRoot(), false);
    try {
      walk.#go(namesOf(start ? start.rest : given), starts);
    } catch (error) {
      walk.close();
      throw error;
    }
    return walk;
  }

  /** The open directory that holds the last name. */
  get directory(): HeldDirectory {
    return this.#current;
  }

  /** The last name (never empty, `.` or `..`). */
  get name(): string {
    return this.#name;
  }

  /** The real path of the last name (itself not resolved: it may be a symlink or not exist). */
  get path(): string {
    return path.posix.join(this.#current.path, this.#name);
  }

  /**
   * The last name was a symlink when the caller opened it: go on from its target (the walk then
   * holds the target's directory). False, and nothing changes, when it is no symlink (by now).
   */
  followLast(starts: readonly WalkStart[]): boolean {
    const pending: string[] = [];
    if (!this.#follow(this.#name, pending, starts, true)) {
      return false;
    }
    this.#go(pending, starts);
    return true;
  }

  close(): void {
    if (!this.#borrowed) {
      closeSync(this.#current.fd);
      this.#borrowed = true;
    }
  }

  /** Walks `pending` (names), entering every one but the last, which becomes `name`. */
  #go(pending: string[], starts: readonly WalkStart[]): void {
    this.#name = "";
    for (;;) {
      const name = pending.shift();
      if (name === undefined) {
        // The names end on the directory reached (`..`, `/`, a symlink to a directory): its last
        // name is its own, in its parent.
        const base = path.posix.basename(this.#current.path);
        if (base === "") {
          throw new WalkError("EISDIR", "/");
        }
        this.#enter("..");
        this.#name = base;
        return;
      }
      if (name === "..") {
        this.#enter("..");
      } else if (pending.length === 0) {
        this.#name = name;
        return;
      } else {
        this.#step(name, pending, starts);
      }
    }
  }

  /** Into directory `name` of the current one; a symlink is followed by the walk itself. */
  #step(name: string, pending: string[], starts: readonly WalkStart[]): void {
    for (;;) {
      try {
        return this.#enter(name);
      } catch (error) {
        // A symlink opened with O_DIRECTORY | O_NOFOLLOW fails with ENOTDIR (or ELOOP), as a file does.
        const code = errnoCodeOf(error);
        if (code !== "ELOOP" && code !== "ENOTDIR") {
          throw new WalkError(code ?? "EIO", path.posix.join(this.#current.path, name));
        }
      }
      if (this.#follow(name, pending, starts, false)) {
        return;
      }
    }
  }

  /**
   * Reads symlink `name` of the current directory: its target's names go before `pending`. False
   * when `name` is no symlink (any more: swapped back since the open that failed; try again, as
   * many times as symlinks may be followed); a WalkError when it is not a directory either.
   */
  #follow(name: string, pending: string[], starts: readonly WalkStart[], last: boolean): boolean {
    const at = path.posix.join(this.#current.path, name);
    if (++this.#symlinks > MAX_SYMLINKS) {
      throw new WalkError("ELOOP", at);
    }
    let target: string;
    try {
      target = readlinkSync(inDirectory(this.#current, name));
    } catch (error) {
      const code = errnoCodeOf(error);
      if (code !== "EINVAL") {
        throw new WalkError(code ?? "EIO", at);
      }
      if (last) {
        return false;
      }
      const stats = lstatSync(inDirectory(this.#current, name), { throwIfNoEntry: false });
      if (stats?.isDirectory() === true || stats?.isSymbolicLink() === true) {
        return false;
      }
      throw new WalkError(stats === undefined ? "ENOENT" : "ENOTDIR", at);
    }
    let rest = target;
    if (path.posix.isAbsolute(target)) {
      const start = startOf(target, starts);
      this.#move(start ? start.directory : openRoot(), start !== undefined);
      rest = start ? start.rest : target;
    }
    pending.unshift(...namesOf(rest));
    return true;
  }

  /** Opens `name` (a directory, or `..`) relative to the current directory and makes it current. */
  #enter(name: string): void {
    const fd = openSync(inDirectory(this.#current, name), DIRECTORY_FLAGS);
    const current = this.#current.path;
    const next = name === ".." ? path.posix.dirname(current) : path.posix.join(current, name);
    this.#move({ fd, path: next }, false);
  }

  #move(next: HeldDirectory, borrowed: boolean): void {
    this.close();
    this.#current = next;
    this.#borrowed = borrowed;
  }
}

function startOf(
  target: string,
  starts: readonly WalkStart[],
): { directory: HeldDirectory; rest: string } | undefined {
  let best: { directory: HeldDirectory; rest: string } | undefined;
  for (const start of starts) {
    for (const prefix of [start.directory.path, start.given]) {
      const rest = below(target, prefix);
      if (rest !== undefined && (best === undefined || rest.length < best.rest.length)) {
        best = { directory: start.directory, rest };
      }
    }
  }
  return best;
}

/** What follows `prefix` in `target` when `target` is `prefix` or below it, else undefined. */
function below(target: string, prefix: string): string | undefined {
  const trimmed = prefix.endsWith("/") ? prefix.slice(0, -1) : prefix;
  if (target === trimmed) {
    return "";
  }
  return target.startsWith(`${trimmed}/`) ? target.slice(trimmed.length + 1) : undefined;
}

/** The names of a path, without empty ones and `.` (`..` stays: the walk goes up itself). */
function namesOf(rest: string): string[] {
  return rest.split("/").filter((name) => name !== "" && name !== ".");
}

function openRoot(): HeldDirectory {
  return { fd: openSync("/", DIRECTORY_FLAGS), path: "/" };
}

/**
 * Opens `dir` (absolute) by a walk from `/`, so the directory held is the one at its real path;
 * throws a WalkError where the walk stops. Close it with closeSync(fd).
 */
export function openDirectory(dir: string): HeldDirectory {
  const walk = PathWalk.walk(dir, []);
  try {
    for (;;) {
      try {
        return {
          fd: openSync(inDirectory(walk.directory, walk.name), DIRECTORY_FLAGS),
          path: walk.path,
        };
      } catch (error) {
        const code = errnoCodeOf(error) ?? "EIO";
        if ((code !== "ENOTDIR" && code !== "ELOOP") || !walk.followLast([])) {
          throw new WalkError(code, walk.path);
        }
      }
    }
  } finally {
    walk.close();
  }
}
