import type Database from "better-sqlite3";
import { errnoCodeOf, messageOf, ProcessError } from "../base/errors.js";
import { loadSqlite } from "./native-sqlite.js";
import { SCHEMA, verifySchema } from "./schema.js";

/** Opens the file in WAL mode, creates missing tables and runs the open-time check. */
export function openDatabase(path: string, check: "schema" | "quick_check"): Database.Database {
  const open = loadSqlite();
  let db: Database.Database | undefined;
  try {
    db = new open(path);
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec(SCHEMA);
    verifySchema(db, path);
    if (check === "quick_check") {
      const problems = db
        .prepare<[], { quick_check: string }>("PRAGMA quick_check(5)")
        .all()
        .map((row) => row.quick_check);
      if (problems.join() !== "ok") {
        throw new ProcessError(
          "store_error",
          `The run store ${path} failed PRAGMA quick_check: ${problems.join("; ")}. Move the file aside and start with a new one (or try the sqlite3 .recover command on a copy)`,
        );
      }
    }
    return db;
  } catch (error) {
    db?.close();
    if (error instanceof ProcessError) {
      throw error;
    }
    const code = errnoCodeOf(error);
    const hint =
      code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT"
        ? "the file is not a SQLite database or is damaged: move it aside and start with a new one"
        : "check that the directory exists and is writable";
    throw new ProcessError(
      "store_error",
      `Could not open the run store ${path} (${messageOf(error)}${typeof code === "string" ? ` [${code}]` : ""}): ${hint}`,
      { cause: error },
    );
  }
}

/** The file's size in bytes, and the bytes of the pages holding live data. */
export function databaseSize(db: Database.Database): { bytes: number; liveBytes: number } {
  const pageCount = pragmaNumber(db, "page_count");
  const freePages = pragmaNumber(db, "freelist_count");
  const pageSize = pragmaNumber(db, "page_size");
  return { bytes: pageCount * pageSize, liveBytes: (pageCount - freePages) * pageSize };
}

/** A pragma that answers one number (`page_count`, `page_size`, ...). */
function pragmaNumber(db: Database.Database, name: string): number {
  const value: unknown = db.pragma(name, { simple: true });
  if (typeof value !== "number") {
    throw new Error(`PRAGMA ${name} answered ${JSON.stringify(value)}, not a number`);
  }
  return value;
}
