import { cutText } from "acp-terminal/internal";

/** Methods listed at most (an agent's list is its own: it is bounded here). */
const MAX_METHODS = 32;
/** Characters of a method's id, name or description kept. */
const MAX_FIELD_CHARS = 200;
/** A variable name as a shell takes it. */
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** An authentication method an agent lists, whatever the version's spelling. */
export interface AuthMethodShown {
  id: string;
  name: string;
  description?: string;
  /** `agent` (authenticate does it), `terminal` (a login run in the user's terminal), `env_var`, or another. */
  type: string;
  /** Variables the method reads (an `env_var` method's, or named in `_meta`), when known. */
  vars: string[];
  /** A terminal login's arguments after the agent's command line, and its variables. */
  args: string[];
  env: Record<string, string>;
}

function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null ? Reflect.get(value, name) : undefined;
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" ? cutText(value, MAX_FIELD_CHARS) : undefined;

/** Variable names a method gives: `vars: [{name}]`, `varName`, or `_meta.<key>.envVars`. */
function varsOf(method: unknown): string[] {
  const names: unknown[] = [];
  const vars = field(method, "vars");
  if (Array.isArray(vars)) {
    names.push(...vars.map((v: unknown) => field(v, "name")));
  }
  names.push(field(method, "varName"));
  const meta = field(method, "_meta");
  if (typeof meta === "object" && meta !== null) {
    for (const value of Object.values(meta)) {
      const envVars = field(value, "envVars");
      if (Array.isArray(envVars)) {
        names.push(...envVars);
      }
    }
  }
  return [...new Set(names.filter((n): n is string => typeof n === "string" && VARIABLE.test(n)))];
}

/** The `authMethods` of an `initialize` answer (v1: `id`; v2: `methodId`), checked and bounded. */
export function authMethodsOf(list: unknown): AuthMethodShown[] {
  if (!Array.isArray(list)) {
    return [];
  }
  return list.slice(0, MAX_METHODS).flatMap((method: unknown) => {
    const id = text(field(method, "id") ?? field(method, "methodId"));
    if (id === undefined) {
      return [];
    }
    const args = field(method, "args");
    const env = field(method, "env");
    const shown: AuthMethodShown = {
      id,
      name: text(field(method, "name")) ?? id,
      type: text(field(method, "type")) ?? "agent",
      vars: varsOf(method),
      args:
        Array.isArray(args) && args.every((a) => typeof a === "string") ? args.slice(0, 64) : [],
      env: envOf(env),
    };
    const description = text(field(method, "description"));
    if (description !== undefined) {
      shown.description = description;
    }
    return [shown];
  });
}

/** A terminal login's variables: v1 gives an object, v2 a list of `{name, value}`. */
function envOf(env: unknown): Record<string, string> {
  const entries: Array<[unknown, unknown]> = Array.isArray(env)
    ? env.map((item: unknown) => [field(item, "name"), field(item, "value")])
    : typeof env === "object" && env !== null
      ? Object.entries(env)
      : [];
  const checked: Record<string, string> = {};
  for (const [name, value] of entries.slice(0, 64)) {
    if (typeof name === "string" && VARIABLE.test(name) && typeof value === "string") {
      checked[name] = value;
    }
  }
  return checked;
}

/** One method in a line: `--auth api-key (API Key: Use an API key; set OPENAI_API_KEY)`. */
export function describeMethod(method: AuthMethodShown): string {
  const about = [method.name, method.description].filter(Boolean).join(": ");
  const how =
    method.type === "terminal"
      ? "; a login that runs in this terminal"
      : method.vars.length > 0
        ? `; set ${method.vars.join(" or ")}`
        : "";
  return `--auth ${method.id} (${about}${how})`;
}

/** The lines that list an agent's methods, or none. */
export function methodLines(methods: readonly AuthMethodShown[]): string[] {
  return methods.length === 0
    ? []
    : ["The agent offers these ways to log in:", ...methods.map((m) => `  ${describeMethod(m)}`)];
}
