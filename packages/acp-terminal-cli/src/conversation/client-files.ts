import { closeSync, constants, lstatSync } from "node:fs";
import { open, rename, unlink, type FileHandle } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { homedir } from "node:os";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import {
  approveFileWrite,
  TerminalError,
  type ApprovalPolicy,
  type SandboxMode,
} from "acp-terminal";
import {
  boundedRequestError,
  errnoCodeOf,
  messageOf,
  writeProtection,
} from "acp-terminal/internal";
import {
  inDirectory,
  MAX_PATH_BYTES,
  openDirectory,
  PathWalk,
  WalkError,
  type HeldDirectory,
  type WalkStart,
} from "./path-walk.js";

/** Bytes of text one `fs/read_text_file` answers at most (escaped, a message stays under the SDK's 32 MiB). */
export const MAX_READ_BYTES = 4 * 1024 * 1024;
/** Bytes of a file read through to find the lines asked for, at most. */
export const MAX_SCAN_BYTES = 256 * 1024 * 1024;
/** Bytes one `fs/write_text_file` may write. */
export const MAX_WRITE_BYTES = 16 * 1024 * 1024;

const INVALID_PARAMS = -32602;
const NOT_FOUND = -32002;
const INTERNAL = -32603;

export interface ClientFilesOptions {
  /** The session's cwd: the agent's files are confined to it, and to `allowed`. */
  cwd: string;
  /** `--fs-allow` directories (absolute). */
  allowed: readonly string[];
  /** The approval policy commands are asked by (`--yes`, `--allow write:…`, the TTY question). */
  policy: ApprovalPolicy;
  /** The sandbox commands run in: writes honour what it protects (see writeProtection). Default off. */
  sandbox?: SandboxMode;
  /** The home directory, whose top dotfiles are protected (default: the user's). */
  home?: string;
}

export interface ReadParams {
  sessionId: string;
  path: string;
  line?: number | null | undefined;
  limit?: number | null | undefined;
}

export interface WriteParams {
  sessionId: string;
  path: string;
  content: string;
}

const fail = (code: number, message: string, data?: object) =>
  boundedRequestError(code, message, data);

/** The directories the agent may reach, held open, and the real paths of those and of home. */
interface Roots {
  starts: WalkStart[];
  /** Real paths: the session's cwd first. */
  paths: string[];
  home: string | undefined;
}

/**
 * The client's file system as ACP v1 offers it to the agent (`fs/read_text_file`,
 * `fs/write_text_file`): absolute paths only, confined to the session's cwd and the `--fs-allow`
 * directories, through symlinks resolved; regular files only (a FIFO would never end a read);
 * reads of at most MAX_READ_BYTES (a `line`/`limit` range of a bigger file is read through it);
 * writes of at most MAX_WRITE_BYTES, asked like commands (the same policy and question) and made
 * whole or not at all (a temporary file renamed over the target, its mode kept).
 *
 * No path is resolved twice: each is walked a name at a time from a directory held open
 * (path-walk.ts: O_NOFOLLOW at every name, symlinks read and followed by the walk), the walk's
 * end is checked, and the file is opened, created and renamed in the directory the walk holds.
 * A directory swapped for a symlink to elsewhere while a request runs changes nothing: the file
 * is in the directory checked, or the request fails. Writes honour what the sandbox protects
 * (writeProtection): inside `.git` refused under a sandbox, else (and a dotfile at the top of the
 * cwd or home) asked of a person, which no allow pattern answers.
 */
export class ClientFiles {
  #roots: Roots | undefined;

  constructor(private readonly options: ClientFilesOptions) {}

  async read(params: ReadParams): Promise<{ content: string }> {
    const line = params.line ?? 1;
    const limit = params.limit ?? undefined;
    if (!Number.isInteger(line) || line < 1) {
      throw fail(
        INVALID_PARAMS,
        `fs/read_text_file: line must be a whole number from 1, received ${String(params.line)}`,
      );
    }
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) {
      throw fail(
        INVALID_PARAMS,
        `fs/read_text_file: limit must be a whole number, received ${String(params.limit)}`,
      );
    }
    const { handle, file } = await this.#openForRead(params.path);
    try {
      return { content: await readLines(handle, file, line, limit) };
    } finally {
      await handle.close();
    }
  }

  async write(params: WriteParams): Promise<Record<string, never>> {
    const byteLength = Buffer.byteLength(params.content, "utf8");
    if (byteLength > MAX_WRITE_BYTES) {
      throw fail(
        INVALID_PARAMS,
        `fs/write_text_file: ${byteLength} bytes, more than the ${MAX_WRITE_BYTES} a write may hold: ${params.path}`,
      );
    }
    const method = "fs/write_text_file";
    const roots = this.#rootsOnce();
    const walk = this.#walk(params.path, method, roots);
    try {
      let existing;
      for (;;) {
        this.#confine(params.path, walk.path, method, roots);
        // One name in a directory held open: synchronous, as the walk's own steps (path-walk.ts).
        try {
          existing = lstatSync(inDirectory(walk.directory, walk.name), { throwIfNoEntry: false });
        } catch (error) {
          throw fail(INTERNAL, `${method}: cannot look at ${walk.path}: ${messageOf(error)}`);
        }
        if (existing?.isSymbolicLink() !== true) {
          break;
        }
        this.#follow(walk, params.path, method, roots);
      }
      const target = walk.path;
      if (existing !== undefined && !existing.isFile()) {
        throw fail(INTERNAL, `${method}: ${target} is not a regular file`);
      }
      const tops = [...roots.paths, ...(roots.home === undefined ? [] : [roots.home])];
      const protection = writeProtection(target, tops, this.options.sandbox ?? "off");
      if (protection?.refused === true) {
        throw fail(
          INTERNAL,
          `${method}: ${target} is protected: it is ${protection.reason}, and the ${this.options.sandbox} sandbox keeps it read-only for commands too; write it yourself if it must change`,
          { path: target },
        );
      }
      try {
        await approveFileWrite(this.options.policy, {
          action: "write_file",
          owner: { connectionId: "fs", sessionId: params.sessionId },
          path: target,
          cwd: this.options.cwd,
          byteLength,
          exists: existing !== undefined,
          ...(protection ? { protected: protection.reason } : {}),
        });
      } catch (error) {
        throw fail(
          INTERNAL,
          `${method}: ${messageOf(error)}`,
          error instanceof TerminalError ? error.data : undefined,
        );
      }
      await replaceWhole(walk, params.content, existing?.mode);
      return {};
    } finally {
      walk.close();
    }
  }

  /** Opens the file `given` names (a regular file, never through a symlink swapped in since). */
  async #openForRead(given: string): Promise<{ handle: FileHandle; file: string }> {
    const method = "fs/read_text_file";
    const roots = this.#rootsOnce();
    const walk = this.#walk(given, method, roots);
    try {
      let handle: FileHandle;
      for (;;) {
        this.#confine(given, walk.path, method, roots);
        try {
          handle = await open(
            inDirectory(walk.directory, walk.name),
            constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
          );
          break;
        } catch (error) {
          if (errnoCodeOf(error) !== "ELOOP") {
            throw notFound(method, walk.path, error);
          }
          this.#follow(walk, given, method, roots);
        }
      }
      const stats = await handle.stat();
      if (!stats.isFile()) {
        await handle.close();
        throw fail(INTERNAL, `${method}: ${walk.path} is not a regular file`, {
          path: walk.path,
        });
      }
      return { handle, file: walk.path };
    } finally {
      walk.close();
    }
  }

  /** `given` checked, and walked to the directory of its last name; a JSON-RPC error if it cannot be. */
  #walk(given: unknown, method: string, roots: Roots): PathWalk {
    if (typeof given !== "string" || !path.isAbsolute(given)) {
      throw fail(
        INVALID_PARAMS,
        `${method}: path must be an absolute path, received ${JSON.stringify(String(given).slice(0, 200))}`,
      );
    }
    if (given.includes("\0")) {
      throw fail(INVALID_PARAMS, `${method}: path holds a NUL byte`);
    }
    if (Buffer.byteLength(given) > MAX_PATH_BYTES) {
      throw fail(INVALID_PARAMS, `${method}: path is longer than ${MAX_PATH_BYTES} bytes`);
    }
    try {
      return PathWalk.walk(given, roots.starts);
    } catch (error) {
      throw walkFailed(method, given, error);
    }
  }

  #follow(walk: PathWalk, given: string, method: string, roots: Roots): void {
    try {
      walk.followLast(roots.starts);
    } catch (error) {
      throw walkFailed(method, given, error);
    }
  }

  /** Throws the JSON-RPC error for a walk that ended outside the cwd and the allowed directories. */
  #confine(given: string, real: string, method: string, roots: Roots): void {
    if (
      roots.paths.some((root) => real === root || real.startsWith(root === "/" ? "/" : `${root}/`))
    ) {
      return;
    }
    const reached = real === given ? given : `${given} (${real})`;
    throw fail(
      INTERNAL,
      `${method}: ${reached} is outside the session's directory ${this.options.cwd}; acp-terminal run --fs-allow DIR lets the agent reach DIR too`,
      { path: given },
    );
  }

  /** Closes the directories held open (once the session is over; a request after it opens them again). */
  close(): void {
    const starts = this.#roots?.starts ?? [];
    this.#roots = undefined;
    for (const start of starts) {
      closeSync(start.directory.fd);
    }
  }

  /** The cwd and the allowed directories, opened once (those missing are left out), and home. */
  #rootsOnce(): Roots {
    this.#roots ??= (() => {
      const starts: WalkStart[] = [];
      for (const dir of [this.options.cwd, ...this.options.allowed]) {
        const directory = openIfThere(dir);
        if (directory !== undefined) {
          starts.push({ directory, given: dir });
        }
      }
      const home = openIfThere(this.options.home ?? homedir());
      if (home !== undefined) {
        closeSync(home.fd);
      }
      return { starts, paths: starts.map((start) => start.directory.path), home: home?.path };
    })();
    return this.#roots;
  }
}

/** `dir` held open (see openDirectory), or undefined when it cannot be (missing, say). */
function openIfThere(dir: string): HeldDirectory | undefined {
  try {
    return openDirectory(dir);
  } catch {
    return undefined; // a root that is not there is left out: nothing can be reached in it
  }
}

function walkFailed(method: string, given: string, error: unknown): Error {
  if (!(error instanceof WalkError)) {
    return fail(INTERNAL, `${method}: cannot reach ${given}: ${messageOf(error)}`, { path: given });
  }
  if (error.code === "ENOENT") {
    return method === "fs/write_text_file"
      ? fail(
          NOT_FOUND,
          `${method}: the directory ${path.dirname(given)} does not exist (${error.at} is missing)`,
          { path: given },
        )
      : fail(NOT_FOUND, `${method}: no such file: ${given}`, { path: given });
  }
  const why =
    error.code === "ELOOP"
      ? "too many symlinks"
      : error.code === "ENOTDIR"
        ? "not a directory"
        : error.code;
  return fail(INTERNAL, `${method}: cannot reach ${given}: ${error.at}: ${why}`, { path: given });
}

function notFound(method: string, given: string, error: unknown): Error {
  return errnoCodeOf(error) === "ENOENT"
    ? fail(NOT_FOUND, `${method}: no such file: ${given}`, { path: given })
    : fail(INTERNAL, `${method}: cannot reach ${given}: ${messageOf(error)}`, { path: given });
}

/** Lines `line`.. of a file (`limit` of them, else to the end), bounded as the class says. */
async function readLines(
  handle: FileHandle,
  file: string,
  line: number,
  limit: number | undefined,
): Promise<string> {
  const decoder = new StringDecoder("utf8");
  const taken: string[] = [];
  let takenBytes = 0;
  let lineNo = 1;
  let partial = "";
  let scanned = 0;
  const tooBig = () =>
    fail(
      INTERNAL,
      `fs/read_text_file: the text asked for is more than ${MAX_READ_BYTES} bytes: ${file}; read it in parts with line and limit`,
      { path: file },
    );
  const take = (text: string): boolean => {
    if (lineNo >= line && (limit === undefined || taken.length < limit)) {
      takenBytes += Buffer.byteLength(text);
      if (takenBytes > MAX_READ_BYTES) {
        throw tooBig();
      }
      taken.push(text);
    }
    return limit !== undefined && taken.length >= limit;
  };
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) {
      break;
    }
    scanned += bytesRead;
    if (scanned > MAX_SCAN_BYTES) {
      throw fail(
        INTERNAL,
        `fs/read_text_file: read ${MAX_SCAN_BYTES} bytes of ${file} without reaching the end of the lines asked for`,
        { path: file },
      );
    }
    if (buffer.subarray(0, bytesRead).includes(0)) {
      throw fail(INTERNAL, `fs/read_text_file: ${file} is not a text file (it holds NUL bytes)`, {
        path: file,
      });
    }
    const parts = (partial + decoder.write(buffer.subarray(0, bytesRead))).split("\n");
    partial = parts.pop() ?? "";
    for (const part of parts) {
      if (take(`${part}\n`)) {
        return taken.join("");
      }
      lineNo++;
    }
    if (partial.length > MAX_READ_BYTES) {
      if (lineNo >= line) {
        throw tooBig();
      }
      partial = ""; // a line before the range: only its end is wanted
    }
  }
  partial += decoder.end();
  if (partial !== "") {
    take(partial);
  }
  return taken.join("");
}

/**
 * Writes `content` to a temporary file in the walk's directory, then renames it over its last
 * name, both in that open directory (its mode kept).
 */
async function replaceWhole(
  walk: PathWalk,
  content: string,
  mode: number | undefined,
): Promise<void> {
  const temporary = `.${walk.name}.${randomBytes(6).toString("hex")}.acp-terminal`;
  const temporaryPath = inDirectory(walk.directory, temporary);
  try {
    const handle = await open(
      temporaryPath,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      mode === undefined ? 0o666 : mode & 0o7777,
    );
    try {
      await handle.writeFile(content, "utf8");
    } finally {
      await handle.close();
    }
    await rename(temporaryPath, inDirectory(walk.directory, walk.name));
  } catch (error) {
    await unlink(temporaryPath).catch(() => undefined); // it may not have been created
    // A system error's message names the /proc path it was made through: its first part says it all.
    const why = messageOf(error).split(", ")[0];
    throw fail(INTERNAL, `fs/write_text_file: cannot write ${walk.path}: ${why}`, {
      path: walk.path,
    });
  }
}
