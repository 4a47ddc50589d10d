import { z } from "zod";

/**
 * Strict tool inputs, one rule for every surface:
 * - an unknown parameter is refused (`invalid_params` through `defineTool`); the message names it,
 *   suggests the nearest accepted name and lists the accepted names;
 * - the JSON Schema says `additionalProperties: false`;
 * - our name is primary; a name the surface's specification uses for the same thing is accepted as
 *   an alias (listed in the JSON Schema as "alias of `x`"). Giving both with different values is
 *   refused; the handler only ever sees the primary name.
 */
export interface StrictInputOptions<Primary extends string> {
  /** Alias → primary name (`{ run_id: "id" }`). */
  aliases?: Readonly<Record<string, Primary>>;
}

/** Names that mean the same thing across tools and specifications, for suggestions. */
const SYNONYMS: readonly (readonly string[])[] = [
  ["cwd", "workdir", "working_directory", "workingdirectory", "dir", "directory", "path"],
  ["env", "environment", "envvars", "env_vars", "environment_variables"],
  ["id", "run_id", "runid", "process_id", "processid", "pid", "sessionid", "session_id", "job_id"],
  ["timeout", "timeout_secs", "timeout_s", "timeout_seconds", "timeoutms", "timeout_ms"],
  ["since_seq", "sinceseq", "cursor", "seq", "next_seq", "after_seq", "from_seq"],
  ["data", "input", "stdin", "text"],
  ["keys", "key", "send_keys"],
  ["state", "status", "state_filter", "filter"],
];

/** Longest unknown name compared and echoed whole in a message. */
const MAX_NAME_CHARS = 64;

function normalize(name: string): string {
  return name.toLowerCase().replace(/[-\s]/g, "_");
}

function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(
        above + 1,
        previous[j - 1]! + 1,
        diagonal + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

/** The accepted name closest to `unknown`: a known synonym first, then the smallest edit distance within a third of its length. */
export function nearestName(unknown: string, accepted: readonly string[]): string | undefined {
  // No parameter name is this long; the edit distance is quadratic in it.
  if (unknown.length > MAX_NAME_CHARS) {
    return undefined;
  }
  const key = normalize(unknown);
  const squashed = key.replace(/_/g, "");
  const exactish = accepted.find((name) => normalize(name).replace(/_/g, "") === squashed);
  if (exactish) {
    return exactish;
  }
  const group = SYNONYMS.find((names) => names.includes(key) || names.includes(squashed));
  const synonym =
    group &&
    accepted.find(
      (name) =>
        group.includes(normalize(name)) || group.includes(normalize(name).replace(/_/g, "")),
    );
  if (synonym) {
    return synonym;
  }
  let best: { name: string; distance: number } | undefined;
  for (const name of accepted) {
    const distance = editDistance(key, normalize(name));
    if (!best || distance < best.distance) {
      best = { name, distance };
    }
  }
  return best && best.distance <= Math.max(1, Math.floor(key.length / 3)) ? best.name : undefined;
}

/** "Unknown parameter `x`: did you mean `y`? Accepted parameters: a, b, c." */
export function unknownParametersMessage(
  unknown: readonly string[],
  accepted: readonly string[],
): string {
  const parts = unknown.slice(0, 5).map((name) => {
    const nearest = nearestName(name, accepted);
    const shownName =
      name.length > MAX_NAME_CHARS
        ? `${name.slice(0, MAX_NAME_CHARS)}… (${name.length} characters)`
        : name;
    return `\`${shownName}\`${nearest ? ` (did you mean \`${nearest}\`?)` : ""}`;
  });
  const more = unknown.length > 5 ? ` and ${unknown.length - 5} more` : "";
  return `unknown parameter${unknown.length > 1 ? "s" : ""} ${parts.join(", ")}${more}; accepted parameters: ${accepted.join(", ")}`;
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * A `z.strictObject` whose unknown-key error names the key, suggests the nearest accepted name and
 * lists them all, with optional aliases folded into their primary names.
 */
export function strictInput<
  Shape extends z.ZodRawShape,
  Primary extends keyof Shape & string = keyof Shape & string,
>(
  shape: Shape,
  options: StrictInputOptions<Primary> = {},
): z.ZodType<z.output<z.ZodObject<Shape>>, z.input<z.ZodObject<Shape>>> {
  const aliases = Object.entries(options.aliases ?? {}) as [string, Primary][];
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- zod's generic shape types cannot follow this rebuilt object; the schema is built from Shape itself
  const fields = shape as unknown as Record<string, z.ZodType>;
  const { full, required } = withAliases(fields, aliases);
  const accepted = Object.keys(full);
  const object = z.strictObject(full, {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? unknownParametersMessage(issue.keys, accepted)
        : undefined,
  });
  if (aliases.length === 0) {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- zod's generic shape types cannot follow this rebuilt object; the schema is built from Shape itself
    return object as unknown as z.ZodType<
      z.output<z.ZodObject<Shape>>,
      z.input<z.ZodObject<Shape>>
    >;
  }
  // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- zod's generic shape types cannot follow this rebuilt object; the schema is built from Shape itself
  return object
    .superRefine((value, ctx) => {
      for (const issue of aliasIssues(value, aliases, required)) {
        ctx.addIssue({ code: "custom", ...issue });
      }
    })
    .transform((value) => {
      const folded: Record<string, unknown> = { ...value };
      for (const [alias, primary] of aliases) {
        if (folded[primary] === undefined && folded[alias] !== undefined) {
          folded[primary] = folded[alias];
        }
        delete folded[alias];
      }
      // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- zod's generic shape types cannot follow this rebuilt object; the schema is built from Shape itself
      return folded as z.output<z.ZodObject<Shape>>;
    }) as unknown as z.ZodType<z.output<z.ZodObject<Shape>>, z.input<z.ZodObject<Shape>>>;
}

/**
 * The fields with each alias added as an optional copy of its primary. An aliased required
 * parameter becomes optional too: either name may be given, one is required (`required`, checked
 * by `aliasIssues`).
 */
function withAliases(
  fields: Record<string, z.ZodType>,
  aliases: readonly [alias: string, primary: string][],
): { full: Record<string, z.ZodType>; required: Set<string> } {
  const full: Record<string, z.ZodType> = { ...fields };
  const required = new Set<string>();
  for (const [alias, primary] of aliases) {
    const target = fields[primary];
    if (!target) {
      throw new Error(`strictInput: alias ${alias} names ${primary}, which is not a parameter`);
    }
    if (alias in fields) {
      throw new Error(`strictInput: alias ${alias} is also a parameter`);
    }
    if (!target.safeParse(undefined).success) {
      required.add(primary);
      full[primary] = target.optional();
    }
    full[alias] = target
      .optional()
      .describe(`Alias of \`${primary}\` (the specification's name); give one of them`);
  }
  return { full, required };
}

/** An alias given beside its primary with another value, and a required parameter given under no name. */
function aliasIssues(
  given: Record<string, unknown>,
  aliases: readonly [alias: string, primary: string][],
  required: ReadonlySet<string>,
): { path: string[]; message: string }[] {
  const issues: { path: string[]; message: string }[] = [];
  for (const [alias, primary] of aliases) {
    if (
      given[alias] !== undefined &&
      given[primary] !== undefined &&
      !sameValue(given[alias], given[primary])
    ) {
      issues.push({
        path: [alias],
        message: `\`${alias}\` is an alias of \`${primary}\`, and they differ: give only one of them`,
      });
    }
  }
  for (const primary of required) {
    const names = [primary, ...aliases.filter(([, p]) => p === primary).map(([alias]) => alias)];
    if (names.every((name) => given[name] === undefined)) {
      issues.push({ path: [primary], message: `required: give \`${names.join("` or `")}\`` });
    }
  }
  return issues;
}
