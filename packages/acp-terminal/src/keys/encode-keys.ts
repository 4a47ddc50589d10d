import {
  CTRL_PATTERN,
  KEY_ALIASES,
  META_PATTERN,
  MODIFIED_PATTERN,
  NAMED_KEYS,
  ctrlByte,
} from "./key-table.js";

/**
 * Named keys for PTY input: `encodeKeys(["ls -la", "Enter"])`, `encodeKeys(["C-c"])`,
 * `encodeKeys(["Up", "Enter"])`. Shared by the CLI and acp-process's `send_keys`.
 */

const BY_LOWER_NAME = new Map<string, string>([
  ...Object.entries(NAMED_KEYS).map(([name, bytes]) => [name.toLowerCase(), bytes] as const),
  ...Object.entries(KEY_ALIASES).map(
    ([alias, name]) => [alias.toLowerCase(), NAMED_KEYS[name]!] as const,
  ),
]);

/** The names `encodeKeys` accepts, for error messages and tool descriptions. */
export const KEY_NAMES: readonly string[] = [
  ...Object.keys(NAMED_KEYS),
  ...Object.keys(KEY_ALIASES),
  "C-a … C-z, C-@, C-[, C-\\, C-], C-^, C-_, C-? (also Ctrl-C, ctrl+c, ^C)",
  "M-x / Alt-x (Escape, then x)",
];

/** Encodes one key name, or returns undefined when `name` is not one. */
export function encodeKey(name: string): string | undefined {
  const named = BY_LOWER_NAME.get(name.toLowerCase());
  if (named !== undefined) {
    return named;
  }
  const ctrl = CTRL_PATTERN.exec(name);
  if (ctrl) {
    return ctrlByte(ctrl[1] ?? ctrl[2] ?? "");
  }
  const meta = META_PATTERN.exec(name);
  if (meta) {
    return `\x1b${meta[1] ?? ""}`;
  }
  return undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** A capitalised near miss of a key name (`Entr`, `Dwn`), or undefined when `item` reads as text. */
function closestKeyName(item: string): string | undefined {
  if (!/^[A-Z][A-Za-z0-9]{2,}$/.test(item)) {
    return undefined;
  }
  const lower = item.toLowerCase();
  for (const name of [...Object.keys(NAMED_KEYS), ...Object.keys(KEY_ALIASES)]) {
    if (name.length >= 4 && editDistance(lower, name.toLowerCase()) <= (name.length >= 6 ? 2 : 1)) {
      return name;
    }
  }
  return undefined;
}

export class UnknownKeyError extends Error {
  override readonly name = "UnknownKeyError";
  constructor(
    readonly key: string,
    readonly suggestion?: string,
  ) {
    super(
      `Unknown key name ${JSON.stringify(key)}${suggestion ? ` (did you mean ${suggestion}?)` : ""}. ` +
        `Valid names: ${KEY_NAMES.join(", ")}. To type it as text, pass { text: ${JSON.stringify(key)} }.`,
    );
  }
}

/** One item: a key name or text to type, or `{ text }` for text that is never read as a name. */
export type KeyInput = string | { text: string };

/**
 * Encodes key names and text into the bytes a PTY should receive, as one string.
 * A string that is no key name is typed as text, unless it looks like a mistyped name
 * (`C-Enter`, `Entr`): that throws `UnknownKeyError` listing the valid names.
 */
export function encodeKeys(keys: readonly KeyInput[]): string {
  let out = "";
  for (const item of keys) {
    if (typeof item !== "string") {
      out += item.text;
      continue;
    }
    const encoded = encodeKey(item);
    if (encoded !== undefined) {
      out += encoded;
      continue;
    }
    if (MODIFIED_PATTERN.test(item) || /^\^.+$/.test(item)) {
      throw new UnknownKeyError(item);
    }
    const suggestion = closestKeyName(item);
    if (suggestion !== undefined) {
      throw new UnknownKeyError(item, suggestion);
    }
    out += item;
  }
  return out;
}
