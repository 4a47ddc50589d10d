// acp-process/sqlite: runs kept in a SQLite file across restarts. better-sqlite3 is an optional
// peer dependency, loaded when a store is opened; without it `new SqliteRunStore()` throws a
// `missing_dependency` ProcessError that says what to install.
export { SqliteRunStore, type SqliteStoreOptions } from "./store/sqlite.js";
