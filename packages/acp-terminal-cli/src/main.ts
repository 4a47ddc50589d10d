#!/usr/bin/env node
import { ExitCode } from "./exit-codes.js";
import { runMcpCommand } from "./command/mcp-command.js";

const PACKAGE_JSON = new URL("../package.json", import.meta.url);

/**
 * Each command loads what it needs when it is chosen: `acp-terminal mcp` sizes its heap before
 * its server loads (see `runMcpCommand`) and needs none of the ACP client (the SDK, drivers,
 * renderers) that `run` loads.
 */
async function main(argv: string[]): Promise<number> {
  if (argv[0] === "mcp") {
    return runMcpCommand(argv.slice(1), {
      stdout: process.stdout,
      stderr: process.stderr,
      cwd: process.cwd(),
      env: process.env,
    });
  }
  if (argv[0] === "proxy") {
    // Only the proxy's own modules: it starts in front of an editor's every session.
    const { runProxy } = await import("./proxy/proxy-command.js");
    return runProxy(argv.slice(1), {
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
      cwd: process.cwd(),
      env: process.env,
    });
  }
  if (argv[0] === "sessions") {
    const [{ runSessionsCommand }, { packageVersion }] = await Promise.all([
      import("./sessions/sessions-command.js"),
      import("acp-terminal/internal"),
    ]);
    return runSessionsCommand(argv.slice(1), {
      stdout: process.stdout,
      stderr: process.stderr,
      cwd: process.cwd(),
      env: process.env,
      version: packageVersion(PACKAGE_JSON),
    });
  }
  const [{ default: path }, { parseCommand }, { USAGE }, { packageVersion }] = await Promise.all([
    import("node:path"),
    import("./command/args.js"),
    import("./command/flags.js"),
    import("acp-terminal/internal"),
  ]);
  const command = parseCommand(argv, process.cwd(), (base, p) => path.resolve(base, p));
  switch (command.kind) {
    case "help":
      process.stdout.write(USAGE);
      return ExitCode.ok;
    case "version":
      process.stdout.write(`${packageVersion(PACKAGE_JSON)}\n`);
      return ExitCode.ok;
    case "error":
      process.stderr.write(`${command.message}\nRun "acp-terminal --help" for usage.\n`);
      return ExitCode.usage;
    case "run": {
      const { run } = await import("./run-command.js");
      return run(command.options, {
        stdin: process.stdin,
        stdout: process.stdout,
        stderr: process.stderr,
        cwd: process.cwd(),
        version: packageVersion(PACKAGE_JSON),
      });
    }
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    // Flush stdout before exiting: a reader on a pipe must get every line.
    process.stdout.write("", () => process.exit(code));
  },
  async (error: unknown) => {
    const { messageOf } = await import("acp-terminal/internal");
    process.stderr.write(`acp-terminal: unexpected failure: ${messageOf(error)}\n`);
    process.exit(ExitCode.agentFailed);
  },
);
