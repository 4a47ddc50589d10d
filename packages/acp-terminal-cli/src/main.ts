#!/usr/bin/env node
import path from "node:path";
import { parseCommand } from "./command/args.js";
import { USAGE } from "./command/flags.js";
import { ExitCode } from "./exit-codes.js";
import { runMcpCommand } from "./command/mcp-command.js";
import { run } from "./run-command.js";
import { runSessionsCommand } from "./sessions/sessions-command.js";
import { messageOf, packageVersion } from "acp-terminal/internal";

const PACKAGE_JSON = new URL("../package.json", import.meta.url);

async function main(argv: string[]): Promise<number> {
  if (argv[0] === "mcp") {
    return runMcpCommand(argv.slice(1), {
      stdout: process.stdout,
      stderr: process.stderr,
      cwd: process.cwd(),
      env: process.env,
    });
  }
  if (argv[0] === "sessions") {
    return runSessionsCommand(argv.slice(1), {
      stdout: process.stdout,
      stderr: process.stderr,
      cwd: process.cwd(),
      env: process.env,
      version: packageVersion(PACKAGE_JSON),
    });
  }
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
    case "run":
      return run(command.options, {
        stdin: process.stdin,
        stdout: process.stdout,
        stderr: process.stderr,
        cwd: process.cwd(),
        version: packageVersion(PACKAGE_JSON),
      });
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    // Flush stdout before exiting: a reader on a pipe must get every line.
    process.stdout.write("", () => process.exit(code));
  },
  (error: unknown) => {
    process.stderr.write(`acp-terminal: unexpected failure: ${messageOf(error)}\n`);
    process.exit(ExitCode.agentFailed);
  },
);
