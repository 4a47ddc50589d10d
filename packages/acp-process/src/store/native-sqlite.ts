import { createRequire } from "node:module";
import type Database from "better-sqlite3";
import { errnoCodeOf, messageOf, ProcessError } from "../base/errors.js";

const require = createRequire(import.meta.url);

/**
 * better-sqlite3, loaded when a SQLite store is opened rather than when acp-process is imported:
 * it is an optional peer dependency with a native module, and an embedder that keeps runs in
 * memory must not need it (or pay for loading it). Missing or unloadable, it is a
 * `missing_dependency` that says what to install.
 */
export function loadSqlite(): typeof Database {
  try {
    // require() answers `any`; the module's own declarations (the type import above) type it.
    const sqlite: typeof Database = require("better-sqlite3");
    return sqlite;
  } catch (error) {
    if (isMissing(error)) {
      throw new ProcessError(
        "missing_dependency",
        "SqliteRunStore needs the package better-sqlite3, an optional peer dependency of acp-process that is not installed: " +
          "run `npm install better-sqlite3` (or `pnpm add better-sqlite3`) in your project, or keep runs in memory with MemoryRunStore",
        { cause: error },
      );
    }
    throw new ProcessError(
      "missing_dependency",
      `SqliteRunStore could not load better-sqlite3 (${messageOf(error)}): its native module may be built for another Node.js; run \`npm rebuild better-sqlite3\``,
      { cause: error },
    );
  }
}

function isMissing(error: unknown): boolean {
  const code = errnoCodeOf(error);
  return code === "MODULE_NOT_FOUND" && messageOf(error).includes("'better-sqlite3'");
}
