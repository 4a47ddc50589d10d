#!/usr/bin/env node
/**
 * What the login shell's environment costs a command: an nvm-style HOME (~/.profile sources
 * ~/.bashrc, which sources ~/.nvm/nvm.sh, which puts a node first on PATH). `which node` run through
 * ProcessManager on a local TerminalHost with LocalTerminalProvider's `loginEnvironment` on: the
 * first run (it takes the snapshot), then BENCH_ITERATIONS (default 40) more, alternating in
 * batches with the same command without it (the baseline). Checks that `which node` gives the
 * login shell's answer. Goal: < 50 ms added per run after the first.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TerminalHost } from "acp-terminal";
import { LocalTerminalProvider, ProcessManager } from "acp-process";
import { fmt, header, Report } from "./support/report.mjs";
import { alternate } from "./support/sampling.mjs";
import { median } from "./support/stats.mjs";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 40);
header(
  "process-login-env",
  "which node with the login shell's environment (nvm-style HOME) vs without",
);

const home = mkdtempSync(join(tmpdir(), "acp-process-bench-login-"));
const nodeBin = join(home, ".nvm/versions/node/v99.0.0/bin");
mkdirSync(nodeBin, { recursive: true });
writeFileSync(join(nodeBin, "node"), "#!/bin/sh\necho v99.0.0\n");
chmodSync(join(nodeBin, "node"), 0o755);
writeFileSync(
  join(home, ".nvm/nvm.sh"),
  'export PATH="$NVM_DIR/versions/node/v99.0.0/bin:$PATH"\n',
);
writeFileSync(join(home, ".profile"), 'if [ -n "$BASH_VERSION" ]; then . "$HOME/.bashrc"; fi\n');
writeFileSync(join(home, ".bashrc"), 'export NVM_DIR="$HOME/.nvm"\n. "$NVM_DIR/nvm.sh"\n');
const env = { ...process.env, HOME: home, SHELL: "/bin/bash" };
const loginAnswer = execFileSync("bash", ["-lic", "which node"], {
  env,
  encoding: "utf8",
  stdio: ["ignore", "pipe", "ignore"],
})
  .trim()
  .split("\n")
  .at(-1);

const host = new TerminalHost();
const withLogin = new ProcessManager({
  provider: new LocalTerminalProvider(host, { loginEnvironment: { shell: "bash", env } }),
});
const without = new ProcessManager({ provider: new LocalTerminalProvider(host) });
const which = async (manager) => {
  const { run } = await manager.run({ sessionId: "bench", command: "which node" });
  return manager.tail(run.id).text.trim();
};
try {
  let started = performance.now();
  const firstAnswer = await which(withLogin);
  const firstMs = performance.now() - started;
  started = performance.now();
  await which(without);
  const plainFirstMs = performance.now() - started;
  const answers = new Set();
  const samples = await alternate(
    {
      login: async () => void answers.add(await which(withLogin)),
      plain: async () => void (await which(without)),
    },
    { warmup: 4, iterations: ITERATIONS, batch: 5 },
  );
  const added = median(samples.login) - median(samples.plain);
  const report = new Report();
  report.row({
    figure: "first run (takes the snapshot)",
    value: fmt.ms(firstMs),
    baseline: `${fmt.ms(plainFirstMs)} without`,
  });
  report.row({
    figure: "later runs, p50",
    value: fmt.ms(median(samples.login)),
    baseline: `${fmt.ms(median(samples.plain))} without`,
    ratio: `${added >= 0 ? "+" : ""}${fmt.ms(added)}`,
    goal: "< +50 ms",
    met: added < 50,
  });
  const right = firstAnswer === loginAnswer && answers.size === 1 && answers.has(loginAnswer);
  report.row({
    figure: "which node = the login shell's",
    value: right
      ? String(loginAnswer)
      : `${firstAnswer} / ${[...answers].join(", ")} (login shell: ${loginAnswer})`,
    goal: "every run",
    met: right,
  });
  report.print();
} finally {
  await withLogin.dispose();
  await without.dispose();
  await host.dispose();
  rmSync(home, { recursive: true, force: true });
}
