import { ExitCode } from "./exit-codes.js";
import { messageOf } from "acp-terminal/internal";

/**
 * `acp-terminal mcp` is served by the acp-terminal-mcp package: it needs acp-process's tools, and
 * acp-process depends on this package, so it is loaded at run time by a specifier tsc does not
 * follow (the project references stay acyclic).
 */
const MCP_MODULE: string = "acp-terminal-mcp/cli";

interface McpModule {
  mcpMain(
    argv: string[],
    io: {
      stdout: NodeJS.WritableStream;
      stderr: NodeJS.WritableStream;
      cwd: string;
      env: NodeJS.ProcessEnv;
    },
  ): Promise<number>;
}

export async function runMcpCommand(
  argv: string[],
  io: {
    stdout: NodeJS.WritableStream;
    stderr: NodeJS.WritableStream;
    cwd: string;
    env: NodeJS.ProcessEnv;
  },
): Promise<number> {
  let mcp: McpModule;
  try {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- an optional package imported by name at run time; McpModule is its type
    mcp = (await import(MCP_MODULE)) as McpModule;
  } catch (error) {
    const reason = messageOf(error);
    io.stderr.write(
      `acp-terminal mcp needs the acp-terminal-mcp package, which could not be loaded (${reason}); install it next to acp-terminal.\n`,
    );
    return ExitCode.usage;
  }
  return mcp.mcpMain(argv, io);
}
