import { execFile } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const PACKAGE = fileURLToPath(new URL("..", import.meta.url));

/**
 * Runs an ES module script with node in `cwd`; resolves with its stdout, rejects with its stderr.
 * Without NODE_PATH: pnpm sets it to its store of hoisted packages, where require() would find
 * better-sqlite3 although the consumer never installed it.
 */
async function node(cwd: string, script: string): Promise<string> {
  const env = { ...process.env };
  delete env.NODE_PATH;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], {
    cwd,
    env,
    timeout: 20_000,
    maxBuffer: 1 << 20,
  });
  return stdout;
}

/**
 * A project that installed acp-process (the built package, copied as npm would unpack it) and its
 * dependencies, but not the optional peer better-sqlite3.
 */
function consumerWithoutSqlite(): string {
  const root = mkdtempSync(join(tmpdir(), "acp-process-consumer-"));
  const modules = join(root, "node_modules");
  mkdirSync(join(modules, "acp-process"), { recursive: true });
  cpSync(join(PACKAGE, "package.json"), join(modules, "acp-process", "package.json"));
  cpSync(join(PACKAGE, "dist"), join(modules, "acp-process", "dist"), { recursive: true });
  for (const dependency of ["acp-terminal", "zod", "@agentclientprotocol/sdk"]) {
    mkdirSync(dirname(join(modules, dependency)), { recursive: true });
    symlinkSync(
      realpathSync(join(PACKAGE, "node_modules", dependency)),
      join(modules, dependency),
      "dir",
    );
  }
  return root;
}

describe("entry points", () => {
  let consumer: string;
  beforeAll(() => {
    consumer = consumerWithoutSqlite();
  });
  afterAll(() => rmSync(consumer, { recursive: true, force: true }));

  it("the consumer really has no better-sqlite3 to load", async () => {
    await expect(node(consumer, `await import("better-sqlite3");`)).rejects.toThrow(
      /Cannot find package 'better-sqlite3'/,
    );
    const required = `import { createRequire } from "node:module"; createRequire(import.meta.url)("better-sqlite3");`;
    await expect(node(consumer, required)).rejects.toThrow(/Cannot find module 'better-sqlite3'/);
  });

  it("a consumer without better-sqlite3 imports acp-process and runs a command with runs kept in memory", async () => {
    const script = `
      import { TerminalHost } from "acp-terminal";
      import { LocalTerminalProvider, ProcessManager } from "acp-process";
      const host = new TerminalHost();
      const manager = new ProcessManager({ provider: new LocalTerminalProvider(host), env: {}, sweepIntervalMs: 0 });
      const started = await manager.start({ sessionId: "s", command: process.execPath, args: ["-e", "console.log('entry-points-marker')"] });
      const run = await manager.wait(started.id);
      const text = manager.tail(run.id, { maxChars: 100 }).text;
      await manager.dispose();
      await host.dispose();
      console.log(JSON.stringify({ status: run.status, text }));
    `;
    expect(JSON.parse(await node(consumer, script))).toEqual({
      status: "completed",
      text: "entry-points-marker\n",
    });
  });

  it("without better-sqlite3, acp-process/sqlite imports and opening a store says what to install", async () => {
    const script = `
      import { SqliteRunStore } from "acp-process/sqlite";
      try {
        new SqliteRunStore("runs.db");
        console.log(JSON.stringify({ opened: true }));
      } catch (error) {
        console.log(JSON.stringify({ code: error.code, message: error.message }));
      }
    `;
    const answer = JSON.parse(await node(consumer, script)) as { code: string; message: string };
    expect(answer.code).toBe("missing_dependency");
    expect(answer.message).toContain("better-sqlite3");
    expect(answer.message).toContain("npm install better-sqlite3");
    expect(existsSync(join(consumer, "runs.db"))).toBe(false);
  });

  it("importing acp-process does not load the native SQLite module even where it is installed; opening a SQLite store does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acp-process-entry-"));
    try {
      const script = `
        import { createRequire } from "node:module";
        const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes("better-sqlite3"));
        await import("acp-process");
        await import("acp-process/tools");
        await import("acp-process/provider");
        await import("acp-process/v2");
        const afterRoot = loaded();
        const { SqliteRunStore } = await import("acp-process/sqlite");
        new SqliteRunStore(${JSON.stringify(join(dir, "runs.db"))}).close();
        console.log(JSON.stringify({ afterRoot, afterStore: loaded() }));
      `;
      expect(JSON.parse(await node(PACKAGE, script))).toEqual({
        afterRoot: false,
        afterStore: true,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
