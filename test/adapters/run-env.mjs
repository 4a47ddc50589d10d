// The environment every run of an adapter gets (record.mjs's, the CLI recorder's, acpx's): a fresh
// HOME, a plain PATH, bash, UTF-8, and the mark that finds its processes again; then the adapter's own.
import { tmpdir } from "node:os";
import { MARK_VARIABLE } from "./run-adapter.mjs";

/**
 * @param {{ home: string, mark: string, adapterEnv: Record<string, string> }} run
 * @returns {Record<string, string>}
 */
export function runEnv({ home, mark, adapterEnv }) {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    SHELL: "/bin/bash",
    LANG: "C.UTF-8",
    TMPDIR: tmpdir(),
    [MARK_VARIABLE]: mark,
    ...adapterEnv,
  };
}
