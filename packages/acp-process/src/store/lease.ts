import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type Database from "better-sqlite3";
import { ProcessError, errnoCodeOf } from "../base/errors.js";

/**
 * One SQLite run store file belongs to one store instance at a time. Two process managers on one
 * file would each mark the other's running runs `lost` at recovery and notify their exits twice.
 * The holder is recorded in `exec_lease` (one row: owner id, pid, host); another opener is refused
 * while that holder may be alive, and takes over a lease whose process is gone (a crash).
 */
const LEASE_SCHEMA = `
CREATE TABLE IF NOT EXISTS exec_lease (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  owner TEXT NOT NULL,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  acquired_at_ms INTEGER NOT NULL
);`;

interface LeaseRow {
  owner: string;
  pid: number;
  host: string;
  acquired_at_ms: number;
}

export class StoreLease {
  readonly owner = randomBytes(8).toString("hex");

  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
  ) {}

  /** Takes the lease, or throws `store_in_use` naming the holder. */
  acquire(): void {
    this.db.exec(LEASE_SCHEMA);
    const host = hostname();
    // IMMEDIATE: two openers racing cannot both see the lease free.
    this.db
      .transaction(() => {
        const row = this.db
          .prepare<[], LeaseRow>(
            "SELECT owner, pid, host, acquired_at_ms FROM exec_lease WHERE id = 1",
          )
          .get();
        if (row && row.owner !== this.owner && mayBeAlive(row, host)) {
          throw new ProcessError(
            "store_in_use",
            `The run store ${this.path} is in use by process ${row.pid} on ${row.host} (since ${new Date(row.acquired_at_ms).toISOString()}): ` +
              "two process managers on one file would mark each other's runs lost. Use one file per agent process, or close the other store first " +
              "(if that process is gone from another machine, delete the exec_lease row).",
          );
        }
        this.db
          .prepare(
            "INSERT OR REPLACE INTO exec_lease (id, owner, pid, host, acquired_at_ms) VALUES (1, ?, ?, ?, ?)",
          )
          .run(this.owner, process.pid, host, Date.now());
      })
      .immediate();
  }

  release(): void {
    this.db.prepare("DELETE FROM exec_lease WHERE id = 1 AND owner = ?").run(this.owner);
  }
}

/** A holder on this host is alive if its pid exists (this process included); elsewhere we cannot tell. */
function mayBeAlive(row: LeaseRow, host: string): boolean {
  if (row.host !== host) {
    return true;
  }
  if (row.pid === process.pid) {
    return true; // another store instance in this process, not closed
  }
  try {
    process.kill(row.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else; ESRCH: it is gone.
    return errnoCodeOf(error) === "EPERM";
  }
}
