import { readFileSync } from "node:fs";

/** This package's version, read from its package.json next to dist/. */
export function packageVersion(): string {
  try {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion -- our own package.json, shipped with this file
    const pkg = JSON.parse(
      readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
    ) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "0.0.0";
  } catch {
    // An unusual layout (bundled, copied): the version is informative only.
    return "0.0.0";
  }
}
