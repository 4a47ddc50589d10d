#!/usr/bin/env node
// Records real sessions of the public ACP adapters (unmodified, installed from the npm registry
// into a cache outside the repository) against local stand-ins for their model APIs, once per
// dialect the client can declare, into test/fixtures/adapters/<adapter>-<dialect>.jsonl.
//
//   node test/adapters/record.mjs [--adapter claude|codex] [--dialect NAME] [--keep] [--debug]
//                                 [--out DIR]
//
// Each run gets a directory under ~/.cache/acp-adapters/runs/ (its HOME, project, raw record,
// adapter stderr and stand-in log), removed afterwards unless --keep; --debug keeps it too, with the
// stand-in's request bodies and codex-acp's app-server log. See test/fixtures/adapters/README.md.
import { mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ADAPTERS, CACHE_DIR, installAdapters, packageDir } from "./adapters.mjs";
import { runV1Session } from "./client-v1.mjs";
import { runV2Session } from "./client-v2.mjs";
import { within } from "./client-support.mjs";
import { DIALECTS } from "./dialects.mjs";
import { prepareRun, startTapped, stopTapped } from "./run-adapter.mjs";
import { replacements, sanitizedRecord } from "./sanitize.mjs";

const RUN_TIMEOUT_MS = 240_000;
const RUNS_DIR = join(CACHE_DIR, "runs");
const EXIT_GRACE_MS = 10_000;

const { values: args } = parseArgs({
  options: {
    adapter: { type: "string" },
    dialect: { type: "string" },
    keep: { type: "boolean", default: false },
    debug: { type: "boolean", default: false },
    out: {
      type: "string",
      default: fileURLToPath(new URL("../fixtures/adapters/", import.meta.url)),
    },
  },
});
/** @param {string} line */
const say = (line) => process.stdout.write(`${line}\n`);

const adapterNames = /** @type {Array<"claude" | "codex">} */ (
  args.adapter === undefined ? ["claude", "codex"] : [args.adapter]
);
for (const name of adapterNames) {
  if (!(name in ADAPTERS)) {
    throw new Error(`unknown adapter ${name}: use claude or codex`);
  }
}
await installAdapters(
  adapterNames.map((name) => ADAPTERS[name]),
  say,
);
mkdirSync(args.out, { recursive: true });

let failures = 0;
for (const adapterName of adapterNames) {
  for (const dialect of DIALECTS) {
    if (args.dialect !== undefined && dialect.name !== args.dialect) {
      continue;
    }
    if (dialect.adapters !== undefined && !dialect.adapters.includes(adapterName)) {
      continue;
    }
    try {
      await recordOne(adapterName, dialect);
    } catch (error) {
      failures += 1;
      say(`  FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
  }
}
process.exitCode = failures === 0 ? 0 : 1;

/**
 * @param {"claude" | "codex"} adapterName
 * @param {import("./dialects.mjs").Dialect} dialect
 */
async function recordOne(adapterName, dialect) {
  const adapter = ADAPTERS[adapterName];
  const fixture = join(args.out, `${adapterName}-${dialect.name}.jsonl`);
  say(`${adapterName} ${adapter.version} × ${dialect.name}: ${dialect.about}`);
  const started = Date.now();
  // Not under /tmp: codex's sandbox (bwrap) mounts a fresh /tmp, which would hide CODEX_HOME
  // and the helper links codex puts there.
  const { runDir, home, project, mark, env: base } = prepareRun(RUNS_DIR, `${adapterName}-`);
  const standIn = await adapter.startStandIn({ keepBodies: args.debug });
  /** @type {Record<string, string>} */
  const env = { ...base, ...adapter.prepare(home, standIn.url) };
  if (args.debug) {
    // codex-acp logs what it exchanges with codex app-server there.
    env.APP_SERVER_LOGS = join(runDir, "app-server-logs");
  }
  if (dialect.newSessionFails) {
    say(`  breaking session/new: ${adapter.breakNewSession.how}`);
    adapter.breakNewSession.apply(env, home);
  }
  const record = join(runDir, "record.jsonl");
  const tapped = startTapped({
    entry: join(packageDir(adapter), adapter.entry),
    cwd: project,
    env,
    record,
    stderr: join(runDir, "adapter.stderr"),
  });
  /** @type {Record<string, unknown>} */
  let outcome = {};
  let stopped;
  try {
    const run = dialect.protocol === 2 ? runV2Session : runV1Session;
    outcome = await within(run(tapped, dialect, project, say), RUN_TIMEOUT_MS, "the recording");
  } finally {
    stopped = await stopTapped(tapped, mark, EXIT_GRACE_MS);
    await standIn.close();
    writeFileSync(join(runDir, "stand-in.json"), JSON.stringify(standIn.log, null, 1));
  }
  const text = sanitizedRecord(
    record,
    replacements({ runDir, cacheDir: CACHE_DIR, standInUrl: standIn.url }),
  );
  writeFileSync(fixture, text);
  const lines = text.trimEnd().split("\n");
  const messages = lines.filter((line) => line.includes('"msg":')).length;
  say(
    `  -> ${fixture}: ${messages} messages, ${statSync(fixture).size} bytes, ` +
      `${((Date.now() - started) / 1000).toFixed(1)} s; stand-in answered ${standIn.log.length} requests; ` +
      `adapter ${stopped.exitedAlone ? "exited when its stdin closed" : "had to be killed"}` +
      `${stopped.survivors > 0 ? `, ${stopped.survivors} marked survivors killed` : ""}; ${JSON.stringify(outcome)}`,
  );
  if (args.keep || args.debug) {
    say(`  run directory kept: ${runDir}`);
  } else {
    rmSync(runDir, { recursive: true, force: true });
  }
}
