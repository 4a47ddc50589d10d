import { readFileSync } from "node:fs";

/**
 * A package's version, read from its package.json (by default acp-terminal's, next to dist/; the
 * apps pass their own, as `new URL("../package.json", import.meta.url)` from dist/main.js).
 */
export function packageVersion(
  packageJson: URL = new URL("../../package.json", import.meta.url),
): string {
  try {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- a package.json shipped with the code; only its version is read, and checked
    const pkg = JSON.parse(readFileSync(packageJson, "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "0.0.0";
  } catch {
    // An unusual layout (bundled, copied): the version is informative only.
    return "0.0.0";
  }
}
