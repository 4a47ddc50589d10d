/**
 * A received value rendered for an error message, bounded whatever the value: JSON-like, at most
 * `maxChars` characters (then `…` and the full length where it is cheap to know), nested at most
 * MAX_DEPTH levels, so a 20 MB string or an array 100,000 levels deep costs a few hundred bytes
 * and never overflows the stack (JSON.stringify does both).
 */
const MAX_DEPTH = 4;

export function previewValue(value: unknown, maxChars = 200): string {
  const preview = new BoundedPreview(maxChars);
  preview.walk(value, 0);
  if (!preview.cut) {
    return preview.text();
  }
  const length =
    typeof value === "string"
      ? ` (${value.length} chars)`
      : Array.isArray(value)
        ? ` (${value.length} items)`
        : "";
  return `${preview.text()}…${length}`;
}

/** The text written so far, up to `maxChars`; every step answers false once the text is cut. */
class BoundedPreview {
  cut = false;
  private readonly out: string[] = [];
  private used = 0;

  constructor(private readonly maxChars: number) {}

  text(): string {
    return this.out.join("");
  }

  walk(v: unknown, depth: number): boolean {
    if (typeof v === "string") {
      return this.emit(this.str(v));
    }
    if (v === null || typeof v !== "object") {
      return this.emit(
        typeof v === "bigint" ? `${v}n` : typeof v === "function" ? "[function]" : String(v),
      );
    }
    if (depth >= MAX_DEPTH) {
      return this.emit(Array.isArray(v) ? "[…]" : "{…}");
    }
    return Array.isArray(v) ? this.walkArray(v, depth) : this.walkObject(v, depth);
  }

  private walkArray(v: readonly unknown[], depth: number): boolean {
    if (!this.emit("[")) {
      return false;
    }
    for (let i = 0; i < v.length; i++) {
      if (i > 0 && !this.emit(",")) {
        return false;
      }
      if (!this.walk(v[i], depth + 1)) {
        return false;
      }
    }
    return this.emit("]");
  }

  private walkObject(v: object, depth: number): boolean {
    if (!this.emit("{")) {
      return false;
    }
    let first = true;
    for (const key in v) {
      if (!Object.hasOwn(v, key)) {
        continue;
      }
      if (!first && !this.emit(",")) {
        return false;
      }
      first = false;
      if (!this.emit(`${this.str(key)}:`)) {
        return false;
      }
      if (!this.walk(Reflect.get(v, key), depth + 1)) {
        return false;
      }
    }
    return this.emit("}");
  }

  private emit(text: string): boolean {
    if (this.cut) {
      return false;
    }
    const room = this.maxChars - this.used;
    if (text.length > room) {
      this.out.push(text.slice(0, Math.max(0, room)));
      this.used = this.maxChars;
      this.cut = true;
      return false;
    }
    this.out.push(text);
    this.used += text.length;
    return true;
  }

  private str(text: string): string {
    return JSON.stringify(text.length > this.maxChars ? text.slice(0, this.maxChars) : text);
  }
}
