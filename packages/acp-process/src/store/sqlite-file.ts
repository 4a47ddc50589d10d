import type Database from "better-sqlite3";
import { errnoCodeOf, messageOf, ProcessError } from "../errors.js";
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
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- better-sqlite3 types rows as unknown; the shape is this statement's columns (schema.ts)
      const problems = (db.pragma("quick_check(5)") as { quick_check: string }[]).map(
        (row) => row.quick_check,
      );
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
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- better-sqlite3 types rows as unknown; the shape is this statement's columns (schema.ts)
  const pageCount = db.pragma("page_count", { simple: true }) as number;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- better-sqlite3 types rows as unknown; the shape is this statement's columns (schema.ts)
  const freePages = db.pragma("freelist_count", { simple: true }) as number;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- better-sqlite3 types rows as unknown; the shape is this statement's columns (schema.ts)
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  return { bytes: pageCount * pageSize, liveBytes: (pageCount - freePages) * pageSize };
}
