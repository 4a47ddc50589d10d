import { constants, type Stats } from "node:fs";
import { lstat, open, realpath, rename, unlink, type FileHandle } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { approveFileWrite, TerminalError, type ApprovalPolicy } from "acp-terminal";
import { boundedRequestError, errnoCodeOf, messageOf } from "acp-terminal/internal";

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

/**
 * The client's file system as ACP v1 offers it to the agent (`fs/read_text_file`,
 * `fs/write_text_file`): absolute paths only, resolved through symlinks and confined to the
 * session's cwd and the `--fs-allow` directories; regular files only (a FIFO would never end a
 * read); reads of at most MAX_READ_BYTES (a `line`/`limit` range of a bigger file is read through
 * it); writes of at most MAX_WRITE_BYTES, asked like commands (the same policy and question) and
 * made whole or not at all (a temporary file renamed over the target, its mode kept).
 */
export class ClientFiles {
  #roots: Promise<string[]> | undefined;

  constructor(private readonly options: ClientFilesOptions) {}

  async read(params: ReadParams): Promise<{ content: string }> {
    const file = await this.#confined(params.path, "fs/read_text_file", false);
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
    const handle = await openFile(file, constants.O_RDONLY);
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
    const target = await this.#confined(params.path, "fs/write_text_file", true);
    const existing = await lstat(target).catch((error: unknown) => {
      if (errnoCodeOf(error) === "ENOENT") {
        return undefined;
      }
      throw fail(INTERNAL, `fs/write_text_file: cannot look at ${target}: ${messageOf(error)}`);
    });
    if (existing !== undefined && !existing.isFile()) {
      throw fail(INTERNAL, `fs/write_text_file: ${target} is not a regular file`);
    }
    try {
      await approveFileWrite(this.options.policy, {
        action: "write_file",
        owner: { connectionId: "fs", sessionId: params.sessionId },
        path: target,
        cwd: this.options.cwd,
        byteLength,
        exists: existing !== undefined,
      });
    } catch (error) {
      throw fail(
        INTERNAL,
        `fs/write_text_file: ${messageOf(error)}`,
        error instanceof TerminalError ? error.data : undefined,
      );
    }
    await replaceWhole(target, params.content, existing);
    return {};
  }

  /**
   * The real path of `given` (a file to write may not exist yet: its directory must), if it lies
   * within the session's cwd or an allowed directory; else a JSON-RPC error saying why.
   */
  async #confined(given: unknown, method: string, forWrite: boolean): Promise<string> {
    if (typeof given !== "string" || !path.isAbsolute(given)) {
      throw fail(
        INVALID_PARAMS,
        `${method}: path must be an absolute path, received ${JSON.stringify(String(given).slice(0, 200))}`,
      );
    }
    if (given.includes("\0")) {
      throw fail(INVALID_PARAMS, `${method}: path holds a NUL byte`);
    }
    let real: string;
    try {
      real = await realpath(given);
    } catch (error) {
      if (errnoCodeOf(error) !== "ENOENT" || !forWrite) {
        throw notFound(method, given, error);
      }
      const dir = await realpath(path.dirname(given)).catch((dirError: unknown) => {
        throw fail(
          NOT_FOUND,
          `${method}: the directory ${path.dirname(given)} does not exist (${messageOf(dirError)})`,
          { path: given },
        );
      });
      real = path.join(dir, path.basename(given));
    }
    const roots = await (this.#roots ??= this.#realRoots());
    if (
      !roots.some(
        (root) => real === root || real.startsWith(root.endsWith("/") ? root : `${root}/`),
      )
    ) {
      const reached = real === given ? given : `${given} (${real})`;
      throw fail(
        INTERNAL,
        `${method}: ${reached} is outside the session's directory ${this.options.cwd}; acp-terminal run --fs-allow DIR lets the agent reach DIR too`,
        { path: given },
      );
    }
    return real;
  }

  async #realRoots(): Promise<string[]> {
    const all = [this.options.cwd, ...this.options.allowed];
    const real = await Promise.all(all.map((dir) => realpath(dir).catch(() => undefined)));
    return real.filter((dir): dir is string => dir !== undefined);
  }
}

function notFound(method: string, given: string, error: unknown): Error {
  return errnoCodeOf(error) === "ENOENT"
    ? fail(NOT_FOUND, `${method}: no such file: ${given}`, { path: given })
    : fail(INTERNAL, `${method}: cannot reach ${given}: ${messageOf(error)}`, { path: given });
}

/** Opens a regular file (never a FIFO or a device, never through a symlink swapped in since). */
async function openFile(file: string, flags: number): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(file, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    throw notFound("fs/read_text_file", file, error);
  }
  const stats = await handle.stat();
  if (!stats.isFile()) {
    await handle.close();
    throw fail(INTERNAL, `fs/read_text_file: ${file} is not a regular file`, { path: file });
  }
  return handle;
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

/** Writes `content` to a temporary file beside `target`, then renames it over `target`. */
async function replaceWhole(
  target: string,
  content: string,
  existing: Stats | undefined,
): Promise<void> {
  const temporary = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${randomBytes(6).toString("hex")}.acp-terminal`,
  );
  try {
    const handle = await open(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
      existing === undefined ? 0o666 : existing.mode & 0o7777,
    );
    try {
      await handle.writeFile(content, "utf8");
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => undefined); // it may not have been created
    if (error instanceof Error && "code" in error && typeof error.code === "number") {
      throw error;
    }
    throw fail(INTERNAL, `fs/write_text_file: cannot write ${target}: ${messageOf(error)}`, {
      path: target,
    });
  }
}
