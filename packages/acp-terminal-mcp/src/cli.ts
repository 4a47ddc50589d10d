import path from "node:path";
import { MCP_USAGE, parseMcpCommand, TOKEN_ENV, type McpOptions } from "./args.js";
import { describePolicy } from "./policy.js";
import { createRuntime } from "./runtime.js";
import { serveOnStdio } from "./serve-stdio.js";
import { toolServerFactory } from "./tool-server.js";
import { TOOL_SETS } from "./tool-sets.js";
import { newToken, removeTokenFile, writeTokenFile } from "./token.js";
import { messageOf, packageVersion } from "acp-terminal/internal";

/** The ProcessManager session every MCP call acts in. */
const SESSION_ID = "mcp";

export interface McpIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** Exit codes as the `run` CLI counts them: 0 ok, 2 usage. */
const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

/**
 * `acp-terminal mcp [options]` / `acp-terminal-mcp [options]`: runs until the stdio client goes away
 * (or, over HTTP, until SIGINT/SIGTERM), then kills every command it started.
 */
export async function mcpMain(argv: string[], io: McpIo): Promise<number> {
  const command = parseMcpCommand(argv, io.cwd, (base, p) => path.resolve(base, p), io.env);
  if (command.kind === "help") {
    io.stdout.write(MCP_USAGE);
    return EXIT_OK;
  }
  if (command.kind === "error") {
    io.stderr.write(`${command.message}\nRun "acp-terminal mcp --help" for usage.\n`);
    return EXIT_USAGE;
  }
  try {
    await serve(command.options, io);
    return EXIT_OK;
  } catch (error) {
    io.stderr.write(`acp-terminal mcp: ${messageOf(error)}\n`);
    return EXIT_FAILED;
  }
}

async function serve(options: McpOptions, io: McpIo): Promise<void> {
  const runtime = await createRuntime(options);
  const note = (message: string) => io.stderr.write(`acp-terminal mcp: ${message}\n`);
  const onerror = (error: Error) => note(`error: ${error.message}`);
  const factory = toolServerFactory({
    tools: TOOL_SETS[options.tools],
    manager: runtime.manager,
    sessionId: SESSION_ID,
    progressIntervalMs: options.progressIntervalMs,
    policy: options.policy,
    calls: runtime.calls,
    waitsForInput: (run) => runtime.waitsForInput(run),
    version: packageVersion(new URL("../package.json", import.meta.url)),
    cancelAcrossInstances: options.http !== undefined,
    instructions: `Command lines run on ${process.platform} through bash (or /bin/sh where there is no bash), starting in ${runtime.workspace} (a working directory outside it is refused). Allowed: ${describePolicy(options.policy)}.`,
  });
  // Removed once serving ends: a listener left behind would keep SIGINT/SIGTERM from ending the process.
  const onSignal: Partial<Record<"SIGINT" | "SIGTERM", () => void>> = {};
  const stopSignal = new Promise<string>((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.once(signal, (onSignal[signal] = () => resolve(signal)));
    }
  });
  try {
    if (!options.http) {
      await Promise.race([serveOnStdio(factory, onerror), stopSignal]);
      return;
    }
    const token = options.token ?? newToken();
    if (options.tokenFile !== undefined) {
      await writeTokenFile(options.tokenFile, token);
    }
    // Loaded only here: its HTTP stack (and Node's fetch, which it touches) is ~10 MB a stdio server need not hold.
    const { serveOnHttp } = await import("./serve-http.js");
    const http = await serveOnHttp(factory, options.http, token, onerror);
    // One write, so a reader that waits for the address has the token instructions with it.
    note(
      `serving ${options.tools} tools at ${http.url} (workspace ${runtime.workspace}; allowed: ${describePolicy(options.policy)})\n` +
        `acp-terminal mcp: ${tokenInstructions(token, options)}`,
    );
    const signal = await stopSignal;
    note(`${signal}: stopping`);
    await http.close();
    if (options.tokenFile !== undefined) {
      await removeTokenFile(options.tokenFile, token);
    }
  } finally {
    for (const [signal, listener] of Object.entries(onSignal)) {
      process.removeListener(signal, listener);
    }
    await factory.tasks.dispose();
    await runtime.dispose();
  }
}

/** How a client passes the token: printed only when the server made it and wrote it nowhere. */
function tokenInstructions(token: string, options: McpOptions): string {
  const header = "every request needs the header Authorization: Bearer <token>";
  if (options.token !== undefined) {
    return `${header} (the token given with --token or ${TOKEN_ENV})`;
  }
  if (options.tokenFile !== undefined) {
    return `${header}; the token this server made is in ${options.tokenFile} (mode 0600)`;
  }
  return `${header}; this server made the token ${token} (pass --token or ${TOKEN_ENV} to choose one, --token-file to have it written to a file)`;
}
