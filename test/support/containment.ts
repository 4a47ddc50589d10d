/**
 * What this machine allows for containment, asked directly (not through the host's own probes),
 * so that a test can expect the mode a host should pick.
 */
import { spawnSync } from "node:child_process";

/** Unprivileged user + PID namespaces (util-linux unshare). */
export const namespacesWork =
  spawnSync("unshare", ["--user", "--map-current-user", "--pid", "--fork", "true"]).status === 0;

/** prctl's number where these tests know it (x64, arm64). */
const PRCTL = process.arch === "x64" ? 157 : process.arch === "arm64" ? 167 : undefined;

/** perl runs and may make itself a child subreaper: the launcher's process-tree containment. */
export const treesWork =
  process.platform === "linux" &&
  PRCTL !== undefined &&
  spawnSync("perl", ["-e", `exit(syscall(${PRCTL}, 36, 1, 0, 0, 0) == 0 ? 0 : 1)`]).status === 0;

// CI must test the default mode: a CI image without perl would test only the process-group floor.
if (process.env.CI && !treesWork) {
  throw new Error(
    "CI: perl with prctl(PR_SET_CHILD_SUBREAPER) is not available, so the default process-tree containment cannot be tested; install perl (apt-get install perl-base)",
  );
}
