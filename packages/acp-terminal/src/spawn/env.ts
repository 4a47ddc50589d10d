import type { EnvVariable, TerminalHostOptions } from "../host/types.js";

/** Set for every command unless the base environment or the request sets them: no pager waits. */
const NON_INTERACTIVE_DEFAULTS: Readonly<Record<string, string>> = { PAGER: "cat", GIT_PAGER: "cat" };

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}

/** The base environment an option selects; a function's result is checked by the host options. */
export function baseEnvironment(option: TerminalHostOptions["env"]): Record<string, string> {
  if (option === "empty") return {};
  if (typeof option === "function") {
    const env: unknown = option({ ...process.env });
    if (typeof env !== "object" || env === null) throw new TypeError(`it must return an object of strings, returned ${String(env)}`);
    return { ...(env as Record<string, string>) };
  }
  return definedOnly(process.env);
}

/** The base, then the request's variables on top (later ones win), then the pager defaults. */
export function commandEnvironment(
  base: Record<string, string>,
  requested: readonly EnvVariable[] | null | undefined,
): Record<string, string> {
  const env = { ...base };
  for (const { name, value } of requested ?? []) env[name] = value;
  for (const [name, value] of Object.entries(NON_INTERACTIVE_DEFAULTS)) env[name] ??= value;
  return env;
}
