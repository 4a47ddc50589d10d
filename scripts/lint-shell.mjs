/**
 * The shell programs the packages ship (the remote helper): `sh -n` parses them with the
 * machine's POSIX sh and, where Debian's `shellcheck` is installed (.ci/run installs it), it
 * checks them as POSIX sh. Lint fails on any finding; without shellcheck it says so and checks
 * the syntax only.
 */
import { execFileSync, spawnSync } from "node:child_process";

const FILES = ["packages/acp-terminal/helper/remote-helper.sh"];

let failed = false;
for (const file of FILES) {
  const parsed = spawnSync("sh", ["-n", file], { encoding: "utf8" });
  if (parsed.status !== 0) {
    process.stderr.write(`sh -n ${file}:\n${parsed.stderr}`);
    failed = true;
  }
}
let shellcheck = true;
try {
  execFileSync("shellcheck", ["--version"], { stdio: "ignore" });
} catch {
  shellcheck = false;
  process.stderr.write(
    "lint-shell: shellcheck is not installed (apt-get install shellcheck): syntax checked only\n",
  );
}
if (shellcheck) {
  const checked = spawnSync("shellcheck", ["--shell=sh", "--severity=style", ...FILES], {
    encoding: "utf8",
  });
  if (checked.status !== 0) {
    process.stderr.write(checked.stdout + checked.stderr);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
