#!/usr/bin/env node
/**
 * Where commands run: the cost of a terminal on another machine or in a container, per executor
 * and image, beside the bare client doing the same in the same run.
 *
 * Servers, started as the tests start them (test/support/*.mjs): a real sshd on a loopback port,
 * a Docker engine (the one DOCKER_HOST reaches, else a private dockerd as root), Podman (its own
 * store under /tmp), and the Dev Container CLI. Targets: ssh://; docker:// into a running busybox
 * container (busybox ash) and a Debian-slim-like one (dash); podman:// into a busybox container;
 * devcontainer:// of a folder whose container is the Debian-slim-like image, remoteUser dev.
 *
 *   - cycle: TerminalHost.create('true') → waitForExit → release, in this process, per target, in
 *     alternating batches with the bare client running `true` the way each terminal's session
 *     runs: `ssh -S master host true` (and `ssh host true`, a connection each time), `docker exec
 *     C true`, `podman exec C true`, `docker exec -u dev C true`; for local a detached
 *     spawn('true') → 'close'.
 *   - terminals/s: 8 cycles in flight at once, for BENCH_SECONDS each (default 3).
 *   - exit seen: `sleep 2` then printing the time as its last act, per target, all at once,
 *     BENCH_EXIT_ROUNDS rounds (default 8): from that time to waitForExit resolving, beside the
 *     bare client running the same to its exit.
 *   - main's Perl helper over the same ssh (cycle and exit seen) when BENCH_MAIN_TREE names a
 *     built checkout of main (`git worktree add /tmp/main main`, install, build).
 *   - output MB/s: one terminal printing BENCH_OUTPUT_MIB (default 32) MiB of zeros
 *     (`head -c N /dev/zero`), beside the same command read through the bare client, alternating,
 *     BENCH_OUTPUT_ROUNDS rounds (default 3), medians.
 *   - docker-image: the first terminal of a session (a container started for it), beside
 *     `docker run --rm IMAGE true`.
 * BENCH_ITERATIONS (default 40) after BENCH_WARMUP (default 5); p50/p95. BENCH_PARTS (a comma list
 * of cycle, rate, exit, output, image; default all) runs only those.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { TerminalHost } from "acp-terminal";
import {
  devcontainerBin,
  makeDevContainerFolder,
  REMOTE_USER,
} from "../test/support/devcontainer.mjs";
import { DEBIAN_IMAGE, startDocker, TEST_IMAGE } from "../test/support/dockerd.mjs";
import { startPodman } from "../test/support/podman.mjs";
import { startSshd } from "../test/support/sshd.mjs";
import { fmt, header, Report } from "./support/report.mjs";
import { alternate } from "./support/sampling.mjs";
import { median, now, summarize, wallMs } from "./support/stats.mjs";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 40);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const OUTPUT_MIB = Number(process.env.BENCH_OUTPUT_MIB ?? 32);
const EXIT_ROUNDS = Number(process.env.BENCH_EXIT_ROUNDS ?? 8);
const OUTPUT_ROUNDS = Number(process.env.BENCH_OUTPUT_ROUNDS ?? 3);
const MAIN_TREE = process.env.BENCH_MAIN_TREE;
/** Which parts run (default all): cycle, rate, exit, output, image. */
const PARTS = new Set((process.env.BENCH_PARTS ?? "cycle,rate,exit,output,image").split(","));
const CONCURRENCY = 8;
const OWNER = { connectionId: "bench", sessionId: "executors" };

header(
  "Executors: terminals on another machine or in a container, per image, beside the bare client",
  `cycle create('true') → waitForExit → release; ${ITERATIONS} iterations after ${WARMUP} warm-up; ` +
    `${CONCURRENCY} in flight for ${SECONDS} s; exit seen after sleep 2, ${EXIT_ROUNDS} rounds; ${OUTPUT_MIB} MiB of output`,
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

/**
 * Exit seen: a command sleeps 2 s, then its last act is to print the time (CLOCK_REALTIME, the
 * same clock on this machine, in its containers and over ssh to here): GNU `date +%s%N`, or
 * busybox `adjtimex` (its date has no %N). The figure runs from that time to waitForExit
 * resolving (or the bare client's exit).
 */
const CLOCKS = {
  gnu: { command: "date +%s%N", read: (text) => Number(BigInt(text.trim()) / 1000n) / 1000 },
  busybox: {
    command: "adjtimex",
    read: (text) => {
      const sec = /time\.tv_sec:\s*(\d+)/.exec(text)?.[1];
      const usec = /time\.tv_usec:\s*(\d+)/.exec(text)?.[1];
      if (!sec || !usec) throw new Error(`no time in ${JSON.stringify(text)}`);
      return Number(sec) * 1000 + Number(usec) / 1000;
    },
  },
};
const lastAct = (clock) => `sleep 2; exec ${CLOCKS[clock].command}`;

async function exitSeen(host, clock) {
  const id = await host.create(OWNER, { command: "sh", args: ["-c", lastAct(clock)] });
  const status = await host.waitForExit(OWNER, id);
  const seen = wallMs();
  const { output } = host.output(OWNER, id);
  await host.release(OWNER, id);
  if (status.exitCode !== 0) throw new Error(`${lastAct(clock)} exited ${JSON.stringify(status)}`);
  return seen - CLOCKS[clock].read(output);
}

/** `quoted`: ssh joins its arguments into one command line, so the command goes as one word. */
async function bareExitSeen(argv, clock, quoted) {
  const command = quoted ? [`sh -c '${lastAct(clock)}'`] : ["sh", "-c", lastAct(clock)];
  const child = spawn(argv[0], [...argv.slice(1), ...command], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (text) => (output += text));
  const exited = once(child, "exit").then(() => wallMs());
  await once(child, "close"); // its output read to the end
  return (await exited) - CLOCKS[clock].read(output);
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

async function bareMBps(argv) {
  const started = now();
  const bytes = await run([...argv, "head", "-c", String(OUTPUT_MIB * 1024 * 1024), "/dev/zero"]);
  return bytes / 1e6 / ((now() - started) / 1000);
}

const report = new Report();
/** Every host made, disposed at the end. */
const hosts = [];
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

/** A host of main's build over the same ssh (main's Perl helper), when BENCH_MAIN_TREE says where. */
let mainHostMade;
function mainSshHost() {
  mainHostMade ??= (async () => {
    if (!MAIN_TREE) {
      return undefined;
    }
    const main = await import(join(MAIN_TREE, "packages/acp-terminal/dist/index.js"));
    const host = new main.TerminalHost({ on: "ssh://acp-test", cwd: "/tmp" });
    hosts.push(host);
    return host;
  })();
  return mainHostMade;
}

/** The cycle per target beside its bare client's `true`, in alternating batches. */
async function cycles(local, targets) {
  const ssh = (process.env.ACP_TERMINAL_SSH_COMMAND ?? "ssh").split(" ");
  const variants = {
    local: () => cycle(local),
    // `run` resolves with a byte count, which `alternate` would take for the duration: discard it.
    spawn: async () => void (await run(["true"])),
    sshBare: async () => void (await run([...ssh, "acp-test", "true"])),
  };
  for (const { name, host, bare } of targets) {
    variants[name] = () => cycle(host);
    variants[`${name} bare`] = async () => void (await run([...bare, "true"]));
  }
  const mainHost = await mainSshHost();
  if (mainHost) {
    variants.perl = () => cycle(mainHost);
  }
  const samples = await alternate(variants, { warmup: WARMUP, iterations: ITERATIONS, batch: 5 });
  cycleRow("local", samples.local, "spawn('true') →'close'", samples.spawn);
  cycleRow("ssh://", samples["ssh://"], "ssh host true (new connection)", samples.sshBare);
  if (mainHost) {
    cycleRow("ssh://", samples["ssh://"], "main's Perl helper over ssh", samples.perl);
  }
  for (const { name, label } of targets) {
    cycleRow(name, samples[name], `${label} … true`, samples[`${name} bare`]);
  }
}

async function rates(local, targets) {
  for (const [name, host] of [["local", local], ...targets.map((t) => [t.name, t.host])]) {
    report.row({
      figure: `${name} terminals/s (${CONCURRENCY} in flight)`,
      value: (await perSecond(host)).toFixed(0),
    });
  }
}

/**
 * Exit seen: every target's command at once (through the host, and through its bare client), so
 * each round's noise is shared; over ssh, main's Perl helper too.
 */
async function exits(_local, targets) {
  const watched = [];
  for (const { name, host, bare, label, clock } of targets) {
    const quoted = name === "ssh://";
    watched.push({ name, seen: () => exitSeen(host, clock) });
    watched.push({ name: `${name} ${label}`, seen: () => bareExitSeen(bare, clock, quoted) });
  }
  const perl = "ssh:// main's Perl helper";
  const mainHost = await mainSshHost();
  if (mainHost) {
    watched.push({ name: perl, seen: () => exitSeen(mainHost, "gnu") });
  } else {
    report.note("main's Perl helper not measured: set BENCH_MAIN_TREE to a built checkout of main");
  }
  const seen = Object.fromEntries(watched.map(({ name }) => [name, []]));
  await Promise.all(watched.map((w) => w.seen())); // warm-up
  for (let round = 0; round < EXIT_ROUNDS; round++) {
    const results = await Promise.all(watched.map((w) => w.seen()));
    results.forEach((ms, i) => seen[watched[i].name].push(ms));
  }
  const row = (name, baseName) => {
    const mine = summarize(seen[name]);
    const base = summarize(seen[baseName]);
    report.row({
      figure: `${name} exit seen, p50 / max`,
      value: `${fmt.ms(mine.p50)} / ${fmt.ms(mine.max)}`,
      baseline: `${baseName} ${fmt.ms(base.p50)} / ${fmt.ms(base.max)}`,
    });
  };
  for (const { name, label } of targets) {
    row(name, `${name} ${label}`);
  }
  if (MAIN_TREE) {
    row("ssh://", perl);
    row(perl, "ssh:// ssh -S master");
  }
}

/** MB/s through each host beside its bare client, alternating, BENCH_OUTPUT_ROUNDS rounds: medians. */
async function outputs(local, targets) {
  for (const { name, host, bare, label } of [
    { name: "local", host: local, bare: [], label: "spawn" },
    ...targets,
  ]) {
    const mine = [];
    const base = [];
    for (let round = 0; round < OUTPUT_ROUNDS; round++) {
      mine.push(await outputMBps(host));
      base.push(await bareMBps(bare));
    }
    const [m, b] = [median(mine), median(base)];
    report.row({
      figure: `${name} output ${OUTPUT_MIB} MiB, median of ${OUTPUT_ROUNDS}`,
      value: fmt.mbps(m),
      baseline: `${label} ${fmt.mbps(b)}`,
      ratio: fmt.ratio(m / b),
    });
  }
}

/** docker-image: a new session's first terminal starts its container. */
async function perImage() {
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
    await run(["docker", "run", "--rm", "--network", "none", TEST_IMAGE, "true"]);
    dockerRun.push(now() - began);
  }
  cycleRow(
    "docker-image:// first terminal of a session",
    firstTerminal,
    "docker run --rm IMAGE true",
    dockerRun,
  );
}

process.env.PATH = `${devcontainerBin()}${delimiter}${process.env.PATH}`;
const [sshd, engine, podman] = await Promise.all([
  startSshd(),
  startDocker({ images: [TEST_IMAGE, DEBIAN_IMAGE] }),
  startPodman({ images: [TEST_IMAGE] }),
]);
const busybox = `acp-bench-${process.pid}`;
const debian = `acp-bench-debian-${process.pid}`;
const controlDir = mkdtempSync(join(tmpdir(), "acp-bench-ssh-"));
const master = join(controlDir, "m");
const env = {
  ...process.env,
  ...podman.env,
  ACP_TERMINAL_SSH_COMMAND: sshd.sshCommand.join(" "),
  DOCKER_HOST: engine.dockerHost,
};
Object.assign(process.env, env);
const ssh = sshd.sshCommand;
let masterProcess;
const devcontainer = await makeDevContainerFolder(DEBIAN_IMAGE);
try {
  const detached = ["run", "-d", "--network", "none", "-v", "/tmp:/tmp"];
  await engine.docker(...detached, "--name", busybox, TEST_IMAGE, "sleep", "100000");
  await engine.docker(...detached, "--name", debian, DEBIAN_IMAGE, "sleep", "100000");
  await podman.podman(...detached, "--name", busybox, TEST_IMAGE, "sleep", "100000");
  masterProcess = spawn(ssh[0], [...ssh.slice(1), "-M", "-S", master, "-N", "acp-test"], {
    stdio: "ignore",
  });
  await run([...ssh, "-o", "ConnectionAttempts=5", "acp-test", "true"]); // the server answers
  const hostOn = (on) => {
    const host = new TerminalHost({ ...(on ? { on } : {}), cwd: "/tmp" });
    hosts.push(host);
    return host;
  };
  const local = hostOn(undefined);
  const devHost = new TerminalHost({
    on: `devcontainer://${devcontainer.folder}`,
    cwd: devcontainer.folder,
  });
  hosts.push(devHost);
  await cycle(devHost); // `devcontainer up` starts its container
  const devId = (
    await engine.docker(
      "ps",
      "-q",
      "--filter",
      `label=devcontainer.local_folder=${devcontainer.folder}`,
    )
  ).trim();

  /** Each target: its host, and the bare client that runs a command the way its sessions do. */
  const targets = [
    {
      name: "ssh://",
      host: hostOn("ssh://acp-test"),
      bare: [...ssh, "-S", master, "acp-test"],
      label: "ssh -S master",
      clock: "gnu",
    },
    {
      name: "docker:// busybox",
      host: hostOn(`docker://${busybox}`),
      bare: ["docker", "exec", busybox],
      label: "docker exec",
      clock: "busybox",
    },
    {
      name: "docker:// debian-slim-like",
      host: hostOn(`docker://${debian}`),
      bare: ["docker", "exec", debian],
      label: "docker exec",
      clock: "gnu",
    },
    {
      name: "podman:// busybox",
      host: hostOn(`podman://${busybox}`),
      bare: ["podman", "exec", busybox],
      label: "podman exec",
      clock: "busybox",
    },
    {
      name: "devcontainer:// debian-slim-like",
      host: devHost,
      bare: ["docker", "exec", "-u", REMOTE_USER, devId],
      label: `docker exec -u ${REMOTE_USER}`,
      clock: "gnu",
    },
  ];

  const parts = { cycle: cycles, rate: rates, exit: exits, output: outputs, image: perImage };
  for (const [part, measure] of Object.entries(parts)) {
    if (PARTS.has(part)) {
      await measure(local, targets);
    }
  }
  report.note(
    "ssh: sshd on 127.0.0.1, the login shell told not to source ~/.bashrc (SHLVL=1 in authorized_keys), see test/support/sshd.mjs",
  );
  report.note(
    "a remote terminal is a session over the executor's connection plus the sh wrapper there; its exit comes through the agent",
  );
  report.note(
    "exit seen: from the time the command printed as its last act to waitForExit resolving (the bare client: to its exit)",
  );
  report.print();
} finally {
  await Promise.allSettled(hosts.map((host) => host.dispose()));
  masterProcess?.kill();
  await engine.docker("rm", "-f", busybox, debian).catch(() => undefined);
  const ids = await engine
    .docker("ps", "-aq", "--filter", `label=devcontainer.local_folder=${devcontainer.folder}`)
    .catch(() => "");
  if (ids.trim()) {
    await engine.docker("rm", "-f", ...ids.trim().split("\n")).catch(() => undefined);
  }
  await devcontainer.remove();
  rmSync(controlDir, { recursive: true, force: true });
  await Promise.allSettled([sshd.stop(), engine.stop(), podman.stop()]);
}
