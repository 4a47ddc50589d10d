import { describeMethod, type AuthMethodShown } from "../agent/auth-methods.js";
import { describeErrorData, type Ending } from "../agent/failure-messages.js";
import { ExitCode } from "../exit-codes.js";
import type { Renderer } from "../view/renderer.js";
import type { AgentIntro, ProtocolDriver, UserMcpServer } from "./driver.js";

/** JSON-RPC code of ACP's "authentication required". */
export const AUTH_REQUIRED = -32000;

/** The methods, listed for a failure line: `; log in with --auth a (…) or --auth b (…)`. */
export function loginHint(methods: readonly AuthMethodShown[]): string {
  return methods.length === 0 ? "" : `; log in with ${methods.map(describeMethod).join(" or ")}`;
}

/**
 * `--auth METHOD`, after `initialize`: an agent-run method is sent (`authenticate`, v2
 * `auth/login`); an `env_var` method first needs its variables set (they reach the agent through
 * the environment it inherits); a terminal login ends the conversation with the login to run in
 * the user's terminal (the CLI runs it, then starts again). Resolves with the Ending that stops
 * the conversation, or undefined to go on.
 */
export async function authenticate(
  driver: ProtocolDriver,
  intro: AgentIntro,
  methodId: string,
  env: NodeJS.ProcessEnv,
): Promise<Ending | undefined> {
  const method = intro.authMethods.find((m) => m.id === methodId);
  if (method === undefined) {
    const offered = intro.authMethods.map((m) => m.id).join(", ");
    return {
      exitCode: ExitCode.usage,
      error: `--auth ${methodId}: the agent offers no such method (${offered === "" ? "it lists none" : `it offers ${offered}`})`,
    };
  }
  if (method.type === "terminal") {
    return {
      exitCode: ExitCode.ok,
      login: { methodId, args: method.args, env: method.env },
    };
  }
  const missing = method.vars.filter((name) => (env[name] ?? "") === "");
  if (method.type === "env_var" && missing.length > 0) {
    return {
      exitCode: ExitCode.usage,
      error: `--auth ${methodId}: set ${missing.join(" and ")} in the environment first (${method.name})`,
    };
  }
  try {
    await driver.authenticate(methodId);
  } catch (error) {
    const message =
      typeof error === "object" && error !== null && "message" in error
        ? String(error.message)
        : String(error);
    const vars = envVarsOf(error);
    const hint = vars.length > 0 ? `; set ${vars.join(" or ")} in the environment` : "";
    return {
      exitCode: ExitCode.agentFailed,
      error: `--auth ${methodId}: authentication failed: ${message}${describeErrorData(error)}${hint}`,
    };
  }
  return undefined;
}

/** Variable names an error's `data.envVars` gives (codex-acp's api-key method). */
function envVarsOf(error: unknown): string[] {
  const data: unknown =
    typeof error === "object" && error !== null ? Reflect.get(error, "data") : undefined;
  const vars: unknown =
    typeof data === "object" && data !== null ? Reflect.get(data, "envVars") : undefined;
  return Array.isArray(vars)
    ? vars.filter((v): v is string => typeof v === "string" && /^[A-Za-z_]\w{0,127}$/.test(v))
    : [];
}

/** The user's MCP servers the agent can take (stdio always; http and sse where it says so). */
export function serversFor(
  intro: AgentIntro,
  servers: readonly UserMcpServer[],
  view: Renderer,
): UserMcpServer[] {
  return servers.filter((server) => {
    if (server.type === "stdio" || intro.mcp[server.type]) {
      return true;
    }
    view.notice(
      `acp-terminal: --mcp-config: server ${JSON.stringify(server.name)} is not passed: the agent takes no ${server.type} MCP servers`,
    );
    return false;
  });
}
