import { stat } from "node:fs/promises";
import { TerminalError } from "../core/errors.js";
import { errnoCodeOf, messageOf } from "../core/thrown.js";

function spawnFailed(
  message: string,
  data: Record<string, unknown>,
  cause?: unknown,
): TerminalError {
  return new TerminalError("spawn_failed", message, data, { cause });
}

/** A missing or non-directory cwd is reported as such (the OS would blame the command: ENOENT). */
export async function checkWorkingDirectory(cwd: string): Promise<void> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(cwd)).isDirectory();
  } catch (error) {
    const code = errnoCodeOf(error);
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw spawnFailed(`Working directory does not exist: ${cwd}`, { cwd, code }, error);
    }
    throw spawnFailed(
      `Working directory is not accessible: ${cwd} (${code ?? String(error)})`,
      { cwd, code },
      error,
    );
  }
  if (!isDirectory) {
    throw spawnFailed(`Working directory is not a directory: ${cwd}`, { cwd });
  }
}

/** What failed and why, for an error the OS gave when starting `command`. */
export function spawnError(command: string, error: unknown): TerminalError {
  const code = errnoCodeOf(error);
  const data = { command, code };
  switch (code) {
    case "ENOENT": {
      const hint = /\s/.test(command)
        ? " The command contains whitespace: pass the program as `command` and its arguments in `args`, or omit `args` to run the line through a shell."
        : command.includes("/")
          ? " Check the path."
          : " Check the command name and PATH.";
      return spawnFailed(`Command not found: ${command} (ENOENT).${hint}`, data, error);
    }
    case "EACCES":
      return spawnFailed(
        `Permission denied: ${command} (EACCES). Check that it is a file and executable (chmod +x).`,
        data,
        error,
      );
    case "ENOEXEC":
      return spawnFailed(
        `Not an executable format: ${command} (ENOEXEC). Add a #! line or run it with its interpreter.`,
        data,
        error,
      );
    case "E2BIG":
      return spawnFailed(
        `Argument list too long: ${command} (E2BIG): its arguments and environment exceed the OS limit ` +
          "(on Linux 128 KiB for one argument). Pass large data through stdin or a file.",
        data,
        error,
      );
    default: {
      const reason = messageOf(error);
      return spawnFailed(
        `Failed to start ${command}: ${reason}${code ? ` (${code})` : ""}`,
        data,
        error,
      );
    }
  }
}
