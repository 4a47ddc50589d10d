// The install check: `npm pack` the built acp-terminal, install the tarball with npm into an empty
// project on a PATH with no C/C++ compiler, make or python (only node, npm and sh), and run a pipe
// terminal through TerminalHost from a small script there. The install must succeed without
// building anything (node-pty is an optional peer: not installed), and a PTY request must fail
// with a TerminalError that names node-pty and how to install it.
// Usage (after `corepack pnpm build`): node scripts/install-check.mjs [--keep]
// Needs the npm registry for acp-terminal's dependencies. Exits 1 with the reason on any failure.
import { execFileSync, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE = resolve(fileURLToPath(new URL("../packages/acp-terminal", import.meta.url)));
const TOOLCHAIN = ["cc", "gcc", "g++", "c++", "clang", "make", "python", "python3"];
/** The whole check (pack, install from the registry, run) must finish within this. */
const INSTALL_TIMEOUT_MS = 180_000;

class CheckFailure extends Error {}

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  throw new CheckFailure(message);
}

/** @param {string} name */
function which(name) {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir !== "" && existsSync(join(dir, name))) {
      return join(dir, name);
    }
  }
  return undefined;
}

const work = mkdtempSync(join(tmpdir(), "acp-terminal-install-"));
const started = performance.now();
try {
  if (!existsSync(join(PACKAGE, "dist", "index.js"))) {
    fail("packages/acp-terminal/dist is missing: run `corepack pnpm build` first");
  }
  const npm = which("npm") ?? fail("npm is not on PATH");
  // A bin dir holding only node, npm and sh: what a Linux machine without a toolchain has.
  const bin = join(work, "bin");
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, "node"));
  symlinkSync(npm, join(bin, "npm"));
  symlinkSync("/bin/sh", join(bin, "sh"));
  /** @type {NodeJS.ProcessEnv} */
  const env = { HOME: process.env.HOME, PATH: bin, npm_config_update_notifier: "false" };
  const found = TOOLCHAIN.filter((tool) => {
    const probe = spawnSync("/bin/sh", ["-c", `command -v ${tool}`], { env });
    return probe.status === 0;
  });
  if (found.length > 0) {
    fail(`the stripped PATH still finds ${found.join(", ")}`);
  }

  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--pack-destination", work], {
      cwd: PACKAGE,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }),
  );
  const tarball = join(work, packed[0].filename);
  const packedFiles = packed[0].files.length;

  const project = join(work, "project");
  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "install-check", private: true, type: "module" }),
  );
  const install = spawnSync(
    "npm",
    ["install", "--no-audit", "--no-fund", "--loglevel=error", tarball],
    { cwd: project, env, encoding: "utf8", timeout: INSTALL_TIMEOUT_MS },
  );
  if (install.status !== 0) {
    fail(
      `npm install of the packed acp-terminal exited ${install.status ?? install.signal}:\n${install.stderr}`,
    );
  }
  const modules = join(project, "node_modules");
  const installed = readdirSync(modules)
    .filter((name) => !name.startsWith("."))
    .flatMap((name) =>
      name.startsWith("@")
        ? readdirSync(join(modules, name)).map((sub) => `${name}/${sub}`)
        : [name],
    );
  const unwanted = installed.filter((name) =>
    /^(node-pty|strip-ansi|acp-terminal-mcp|acp-process|@modelcontextprotocol\/.*)$/.test(name),
  );
  if (unwanted.length > 0) {
    fail(`installed what the library must not pull in: ${unwanted.join(", ")}`);
  }

  writeFileSync(
    join(project, "check.mjs"),
    `import { TerminalHost, TerminalError } from "acp-terminal";
const host = new TerminalHost();
try {
const owner = { connectionId: "c", sessionId: "s" };
const id = await host.create(owner, { command: "node", args: ["-e", "console.log('hello from a pipe')"] }, { sessionCwd: process.cwd() });
const status = await host.waitForExit(owner, id);
const { output } = host.output(owner, id);
if (status.exitCode !== 0 || output !== "hello from a pipe\\n") {
  throw new Error("pipe terminal: " + JSON.stringify({ status, output }));
}
let ptyError;
try {
  await host.create(owner, { command: "node", args: ["-e", "1"], pty: true }, { sessionCwd: process.cwd() });
} catch (error) {
  ptyError = error;
}
if (!(ptyError instanceof TerminalError) || !/npm install node-pty/.test(ptyError.message)) {
  throw new Error("a PTY request without node-pty: " + String(ptyError));
}
console.log(JSON.stringify({ output, ptyAvailable: host.ptyAvailable, ptyError: ptyError.message }));
} finally {
  await host.dispose();
}
`,
  );
  const run = spawnSync("node", ["check.mjs"], {
    cwd: project,
    env,
    encoding: "utf8",
    timeout: 30_000,
  });
  if (run.status !== 0) {
    fail(`the pipe-terminal script exited ${run.status ?? run.signal}:\n${run.stderr}`);
  }
  const result = JSON.parse(run.stdout);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `install check passed in ${seconds} s: packed acp-terminal (${packedFiles} files) installed with npm on a PATH without ${TOOLCHAIN.join("/")}; ${installed.length} packages in node_modules (${installed.join(", ")}); no node-pty, strip-ansi or MCP package`,
  );
  console.log(
    `  pipe terminal printed ${JSON.stringify(result.output)}; ptyAvailable ${result.ptyAvailable}`,
  );
  console.log(`  a PTY request: TerminalError "${result.ptyError}"`);
} catch (error) {
  console.error(`install check FAILED: ${error instanceof CheckFailure ? error.message : error}`);
  process.exitCode = 1;
} finally {
  if (process.argv.includes("--keep")) {
    console.log(`kept ${work}`);
  } else {
    rmSync(work, { recursive: true, force: true });
  }
}
