/**
 * The Perl programs the packages ship (the launcher): `perl -c` compiles each with the machine's
 * perl (core modules only, as on the hosts that run it) and fails on any warning, not only on an
 * error. Where `perlcritic` is installed it checks them too; without it lint says so.
 */
import { execFileSync, spawnSync } from "node:child_process";

const FILES = ["packages/acp-terminal/helper/launcher.pl"];

let failed = false;
for (const file of FILES) {
  const compiled = spawnSync("perl", ["-c", "-w", file], { encoding: "utf8" });
  const said = compiled.stderr.replace(`${file} syntax OK\n`, "");
  if (compiled.status !== 0 || said !== "") {
    process.stderr.write(`perl -c ${file}:\n${compiled.stderr}`);
    failed = true;
  }
}
let perlcritic = true;
try {
  execFileSync("perlcritic", ["--version"], { stdio: "ignore" });
} catch {
  perlcritic = false;
  process.stderr.write(
    "lint-perl: perlcritic is not installed (apt-get install libperl-critic-perl): compiled only\n",
  );
}
if (perlcritic) {
  const checked = spawnSync("perlcritic", ["--gentle", ...FILES], { encoding: "utf8" });
  if (checked.status !== 0) {
    process.stderr.write(checked.stdout + checked.stderr);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
