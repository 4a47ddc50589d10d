/**
 * A received value rendered for an error message, bounded whatever the value: JSON-like, at most
 * `maxChars` characters (then `…` and the full length where it is cheap to know), nested at most
 * MAX_DEPTH levels, so a 20 MB string or an array 100,000 levels deep costs a few hundred bytes
 * and never overflows the stack (JSON.stringify does both).
 */
const MAX_DEPTH = 4;

export function previewValue(value: unknown, maxChars = 200): string {
  const out: string[] = [];
  let used = 0;
  let cut = false;
  const emit = (text: string): boolean => {
    if (cut) {
      return false;
    }
    const room = maxChars - used;
    if (text.length > room) {
      out.push(text.slice(0, Math.max(0, room)));
      used = maxChars;
      cut = true;
      return false;
    }
    out.push(text);
    used += text.length;
    return true;
  };
  const str = (text: string): string =>
    JSON.stringify(text.length > maxChars ? text.slice(0, maxChars) : text);

  const walk = (v: unknown, depth: number): boolean => {
    if (typeof v === "string") {
      return emit(str(v));
    }
    if (v === null || typeof v !== "object") {
      return emit(
        typeof v === "bigint" ? `${v}n` : typeof v === "function" ? "[function]" : String(v),
      );
    }
    if (depth >= MAX_DEPTH) {
      return emit(Array.isArray(v) ? "[…]" : "{…}");
    }
    if (Array.isArray(v)) {
      if (!emit("[")) {
        return false;
      }
      for (let i = 0; i < v.length; i++) {
        if (i > 0 && !emit(",")) {
          return false;
        }
        if (!walk(v[i], depth + 1)) {
          return false;
        }
      }
      return emit("]");
    }
    if (!emit("{")) {
      return false;
    }
    let first = true;
    for (const key in v) {
      if (!Object.hasOwn(v, key)) {
        continue;
      }
      if (!first && !emit(",")) {
        return false;
      }
      first = false;
      if (!emit(`${str(key)}:`)) {
        return false;
      }
      if (!walk(Reflect.get(v, key), depth + 1)) {
        return false;
      }
    }
    return emit("}");
  };

  walk(value, 0);
  if (!cut) {
    return out.join("");
  }
  const length =
    typeof value === "string"
      ? ` (${value.length} chars)`
      : Array.isArray(value)
        ? ` (${value.length} items)`
        : "";
  return `${out.join("")}…${length}`;
}
