/** `--session`, `--auth`, `--fs-allow`, `--mcp-config`, `--quiet`: each present only when given. */
export interface SessionFlags {
  /** `--session ID`: load or resume this session instead of starting one. */
  resume?: string;
  /** `--auth METHOD`: authenticate with this method before the session. */
  auth?: string;
  /** `--fs-allow DIR`: directories besides the session's cwd the agent's file requests may reach. */
  fsAllow?: string[];
  /** `--mcp-config FILE`: the user's MCP servers (the format MCP hosts use), for the agent. */
  mcpConfig?: string;
  /** `--quiet`: print only the agent's final message. */
  quiet?: boolean;
  /** `--name NAME`: the session of that name (this agent, this cwd), else a new one named so. */
  name?: string;
}

/** The every-day client's flags, each present only when given; paths resolved from `cwd`. */
export function sessionFlags(
  values: {
    session?: string | undefined;
    auth?: string | undefined;
    "fs-allow": string[];
    "mcp-config"?: string | undefined;
    quiet: boolean;
    name?: string | undefined;
  },
  cwd: string,
  resolvePath: (base: string, p: string) => string,
): { session?: SessionFlags } {
  const flags: SessionFlags = {
    ...(values.session === undefined ? {} : { resume: values.session }),
    ...(values.auth === undefined ? {} : { auth: values.auth }),
    ...(values["fs-allow"].length === 0
      ? {}
      : { fsAllow: values["fs-allow"].map((dir) => resolvePath(cwd, dir)) }),
    ...(values["mcp-config"] === undefined
      ? {}
      : { mcpConfig: resolvePath(cwd, values["mcp-config"]) }),
    ...(values.quiet ? { quiet: true } : {}),
    ...(values.name === undefined ? {} : { name: values.name }),
  };
  return Object.keys(flags).length === 0 ? {} : { session: flags };
}

/** A session's name is one word a person types: `--name fix-tests`. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Why `name` cannot name a session, or undefined. */
export function invalidName(name: string): string | undefined {
  return NAME.test(name)
    ? undefined
    : `Invalid --name: one word of letters, digits, '.', '_' or '-' (at most 64), received ${JSON.stringify(name.slice(0, 100))}`;
}
