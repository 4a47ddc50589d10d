// Makes a raw tap record a fixture: machine-specific strings (the run's temporary directory, the
// adapter cache, the user's home, the stand-in's port, the host name) become fixed placeholders,
// inside every JSON string value, so that the wire shapes stay exactly as recorded.
import { readFileSync } from "node:fs";
import { homedir, hostname } from "node:os";

export const RUN_PLACEHOLDER = "/tmp/acp-recording";
export const CACHE_PLACEHOLDER = "/opt/acp-adapters";
export const HOME_PLACEHOLDER = "/home/user";
export const PORT_PLACEHOLDER = "8080";

/**
 * @param {{ runDir: string, cacheDir: string, standInUrl: string }} where
 * @returns {Array<[string, string]>} longest first, so that a path inside another is replaced whole
 */
export function replacements({ runDir, cacheDir, standInUrl }) {
  const port = new URL(standInUrl).port;
  /** @type {Array<[string, string]>} */
  const pairs = [
    [runDir, RUN_PLACEHOLDER],
    // Claude Code names a project's directories after its path with every other character a dash.
    [mangled(runDir), mangled(RUN_PLACEHOLDER)],
    [cacheDir, CACHE_PLACEHOLDER],
    // With its slash: a bare "/root" is also a word agents use (codex names its main agent so).
    [`${homedir()}/`, `${HOME_PLACEHOLDER}/`],
    [`127.0.0.1:${port}`, `127.0.0.1:${PORT_PLACEHOLDER}`],
  ];
  // Claude Code's temporary directory is named after the user id (/tmp/claude-0 for root).
  const uid = process.getuid?.() ?? 0;
  if (uid !== 0) {
    pairs.push([`/claude-${uid}/`, "/claude-0/"]);
  }
  // A short host name could be a common word: those stay.
  if (hostname().length >= 6) {
    pairs.push([hostname(), "recording-host"]);
  }
  return pairs.filter(([from]) => from.length > 1).sort((a, b) => b[0].length - a[0].length);
}

/** @param {string} path */
function mangled(path) {
  return path.replace(/[^a-zA-Z0-9]/g, "-");
}

/**
 * @param {unknown} value
 * @param {Array<[string, string]>} pairs
 * @returns {unknown}
 */
function replaceIn(value, pairs) {
  if (typeof value === "string") {
    let text = value;
    for (const [from, to] of pairs) {
      text = text.split(from).join(to);
    }
    return text;
  }
  if (Array.isArray(value)) {
    return value.map((item) => replaceIn(item, pairs));
  }
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        replaceIn(key, pairs),
        key === "data" && typeof item === "string"
          ? replaceInBase64(item, pairs)
          : replaceIn(item, pairs),
      ]),
    );
  }
  return value;
}

/**
 * A v2 terminal's bytes travel base64-encoded (`data`): the text inside is replaced and encoded
 * again. A string that is not base64, or that holds nothing to replace, stays as it is.
 * @param {string} data
 * @param {Array<[string, string]>} pairs
 */
function replaceInBase64(data, pairs) {
  const bytes = Buffer.from(data, "base64");
  if (bytes.toString("base64") !== data) {
    return /** @type {string} */ (replaceIn(data, pairs));
  }
  const text = bytes.toString("utf8");
  const replaced = /** @type {string} */ (replaceIn(text, pairs));
  return replaced === text ? data : Buffer.from(replaced, "utf8").toString("base64");
}

/**
 * The raw record at `path`, sanitized, as JSONL text.
 * @param {string} path
 * @param {Array<[string, string]>} pairs
 */
export function sanitizedRecord(path, pairs) {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.stringify(replaceIn(JSON.parse(line), pairs)))
    .map((line) => `${line}\n`)
    .join("");
}
