#!/usr/bin/env node
/**
 * Where commands run: the cost of a terminal on another machine, per executor, beside the bare
 * client doing the same from the same run.
 *
 * Servers: a real sshd on a loopback port and a Docker engine (the one DOCKER_HOST reaches, else a
 * private dockerd as root), both started here as the tests start them (test/support/*.mjs), and a
 * running container of the test image (busybox + perl) for docker://.
 *
 *   - cycle: TerminalHost.create('true') → waitForExit → release, in this process, per executor
 *     (local; ssh://; docker://), in alternating batches with its baselines: a bare
 *     `ssh host true` (a connection each time), the same over the executor's kind of connection
 *     (`ssh -S master host true`), a bare `docker exec CONTAINER true`, and for local a detached
 *     spawn('true') → 'close'.
 *   - terminals/s: 8 cycles in flight at once, for BENCH_SECONDS each (default 3).
 *   - output MB/s: one terminal printing BENCH_OUTPUT_MIB (default 32) MiB of zeros
 *     (`head -c N /dev/zero`), beside the same command read through the bare client.
 *   - docker-image: the first terminal of a session (a container started for it), beside
 *     `docker run --rm IMAGE true`.
 * BENCH_ITERATIONS (default 40) after BENCH_WARMUP (default 5); p50/p95.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TerminalHost } from "acp-terminal";
import { startDocker, TEST_IMAGE } from "../test/support/dockerd.mjs";
import { startSshd } from "../test/support/sshd.mjs";
import { fmt, header, Report } from "./support/report.mjs";
import { alternate } from "./support/sampling.mjs";
import { now, summarize } from "./support/stats.mjs";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 40);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const OUTPUT_MIB = Number(process.env.BENCH_OUTPUT_MIB ?? 32);
const CONCURRENCY = 8;
const OWNER = { connectionId: "bench", sessionId: "executors" };

header(
  "Executors: terminals on another machine (ssh, docker) beside the bare client",
  `cycle create('true') → waitForExit → release; ${ITERATIONS} iterations after ${WARMUP} warm-up; ` +
    `${CONCURRENCY} in flight for ${SECONDS} s; ${OUTPUT_MIB} MiB of output`,
);

/** Runs argv to completion with its stdout read (and counted); rejects on a non-zero exit. */
async function run(argv, env = process.env) {
  const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "pipe"], env });
  let bytes = 0;
  let said = "";
  child.stdout.on("data", (chunk) => (bytes += chunk.length));
  child.stderr.on("data", (chunk) => (said += chunk));
  const [code] = await once(child, "close");
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}: ${said}`);
  return bytes;
}

async function cycle(host) {
  const id = await host.create(OWNER, { command: "true", args: [] });
  const status = await host.waitForExit(OWNER, id);
  if (status.exitCode !== 0) throw new Error(`true exited ${JSON.stringify(status)}`);
  await host.release(OWNER, id);
}

async function perSecond(host) {
  let done = 0;
  const until = now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (now() < until) {
        await cycle(host);
        done++;
      }
    }),
  );
  return done / SECONDS;
}

async function outputMBps(host) {
  const started = now();
  const bytes = OUTPUT_MIB * 1024 * 1024;
  const id = await host.create(OWNER, {
    command: "head",
    args: ["-c", String(bytes), "/dev/zero"],
    outputByteLimit: 1024 * 1024,
  });
  await host.waitForExit(OWNER, id);
  const { totalBytes } = host.output(OWNER, id);
  await host.release(OWNER, id);
  if (totalBytes !== bytes) throw new Error(`read ${totalBytes} of ${bytes} bytes`);
  return bytes / 1e6 / ((now() - started) / 1000);
}

async function bareMBps(argv, env) {
  const started = now();
  const bytes = await run(
    [...argv, "head", "-c", String(OUTPUT_MIB * 1024 * 1024), "/dev/zero"],
    env,
  );
  return bytes / 1e6 / ((now() - started) / 1000);
}

const report = new Report();
const cycleRow = (figure, samples, baselineName, baseline) => {
  const mine = summarize(samples);
  const base = summarize(baseline);
  report.row({
    figure: `${figure} cycle p50 / p95`,
    value: `${fmt.ms(mine.p50)} / ${fmt.ms(mine.p95)}`,
    baseline: `${baselineName} ${fmt.ms(base.p50)} / ${fmt.ms(base.p95)}`,
    ratio: fmt.ratio(mine.p50 / base.p50),
  });
};

const sshd = await startSshd();
const engine = await startDocker();
const container = `acp-bench-${process.pid}`;
const controlDir = mkdtempSync(join(tmpdir(), "acp-bench-ssh-"));
const master = join(controlDir, "m");
const env = {
  ...process.env,
  ACP_TERMINAL_SSH_COMMAND: sshd.sshCommand.join(" "),
  DOCKER_HOST: engine.dockerHost,
};
Object.assign(process.env, env);
const ssh = sshd.sshCommand;
let masterProcess;
const hosts = [];
try {
  await engine.docker(
    "run",
    "-d",
    "--network",
    "none",
    "--name",
    container,
    TEST_IMAGE,
    "sleep",
    "100000",
  );
  masterProcess = spawn(ssh[0], [...ssh.slice(1), "-M", "-S", master, "-N", "acp-test"], {
    stdio: "ignore",
  });
  await run([...ssh, "-o", "ConnectionAttempts=5", "acp-test", "true"]); // the server answers
  const local = new TerminalHost({ cwd: "/tmp" });
  const overSsh = new TerminalHost({ on: "ssh://acp-test", cwd: "/tmp" });
  const inDocker = new TerminalHost({ on: `docker://${container}`, cwd: "/tmp" });
  hosts.push(local, overSsh, inDocker);

  const samples = await alternate(
    {
      local: () => cycle(local),
      // `run` resolves with a byte count, which `alternate` would take for the duration: discard it.
      spawn: async () => void (await run(["true"])),
      ssh: () => cycle(overSsh),
      sshBare: async () => void (await run([...ssh, "acp-test", "true"])),
      sshMux: async () => void (await run([...ssh, "-S", master, "acp-test", "true"])),
      docker: () => cycle(inDocker),
      dockerExec: async () => void (await run(["docker", "exec", container, "true"], env)),
    },
    { warmup: WARMUP, iterations: ITERATIONS, batch: 5 },
  );
  cycleRow("local", samples.local, "spawn('true') →'close'", samples.spawn);
  cycleRow("ssh://", samples.ssh, "ssh host true (new connection)", samples.sshBare);
  cycleRow("ssh://", samples.ssh, "ssh -S master host true", samples.sshMux);
  cycleRow("docker://", samples.docker, "docker exec C true", samples.dockerExec);

  for (const [name, host] of [
    ["local", local],
    ["ssh://", overSsh],
    ["docker://", inDocker],
  ]) {
    report.row({
      figure: `${name} terminals/s (${CONCURRENCY} in flight)`,
      value: (await perSecond(host)).toFixed(0),
    });
  }

  /** @type {{name: string, host: TerminalHost, bare: string[], label: string}[]} */
  const outputs = [
    { name: "local", host: local, bare: [], label: "spawn" },
    {
      name: "ssh://",
      host: overSsh,
      bare: [...ssh, "-S", master, "acp-test"],
      label: "ssh -S master",
    },
    {
      name: "docker://",
      host: inDocker,
      bare: ["docker", "exec", container],
      label: "docker exec",
    },
  ];
  for (const { name, host, bare, label } of outputs) {
    const mine = await outputMBps(host);
    const base = await bareMBps(bare, env);
    report.row({
      figure: `${name} output ${OUTPUT_MIB} MiB`,
      value: fmt.mbps(mine),
      baseline: `${label} ${fmt.mbps(base)}`,
      ratio: fmt.ratio(mine / base),
    });
  }

  // docker-image: a new session's first terminal starts its container.
  const firstTerminal = [];
  const dockerRun = [];
  for (let i = 0; i < 3; i++) {
    const perSession = new TerminalHost({
      on: `docker-image://${TEST_IMAGE}?network=none`,
      cwd: "/tmp",
    });
    const started = now();
    await cycle(perSession);
    firstTerminal.push(now() - started);
    await perSession.dispose();
    const began = now();
    await run(["docker", "run", "--rm", "--network", "none", TEST_IMAGE, "true"], env);
    dockerRun.push(now() - began);
  }
  cycleRow(
    "docker-image:// first terminal of a session",
    firstTerminal,
    "docker run --rm IMAGE true",
    dockerRun,
  );
  report.note(
    "ssh: sshd on 127.0.0.1, the login shell told not to source ~/.bashrc (SHLVL=1 in authorized_keys), see test/support/sshd.mjs",
  );
  report.note(
    "a remote terminal is a session over the executor's connection plus a perl wrapper there; its exit comes through the agent",
  );
  report.print();
} finally {
  await Promise.allSettled(hosts.map((host) => host.dispose()));
  masterProcess?.kill();
  await engine.docker("rm", "-f", container).catch(() => undefined);
  rmSync(controlDir, { recursive: true, force: true });
  await Promise.allSettled([sshd.stop(), engine.stop()]);
}
