#!/usr/bin/env node
/**
 * Throughput: 1 GiB of mixed UTF-8 through one TerminalHost terminal (outputByteLimit 1 MiB),
 * beside a plain child_process read of the same generator in the same run. Also the host's RSS
 * growth while the output passes, and output() read during the flood: valid, never over the
 * limit, truncated, and ending with the generator's last bytes once it exited.
 *
 * Rounds run a plain read and the host (BENCH_ROUNDS, default 5; which goes first alternates
 * from round to round), each read in a fresh Node
 * process (`--round plain|host`, printing one JSON line) so that neither inherits the other's
 * heap or malloc arenas. Figures are medians; the ratio is the median of the per-round ratios
 * (the two reads of a round ran next to each other). The reader's CPU time per GiB is shown
 * too: it is what the host adds, and it is less disturbed by other load on the machine.
 * BENCH_FLOOD_MIB sets the size (default 1024).
 */
import { execFileSync, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { TerminalHost } from "acp-terminal";
import { gc, MB, MiB, rss, rssSampler, vmHwm } from "./support/memory.mjs";
import { fmt, header, Report } from "./support/report.mjs";
import { median, now } from "./support/stats.mjs";
import { floodEnd } from "./support/content.mjs";

const FLOOD = fileURLToPath(new URL("./support/flood.mjs", import.meta.url));
const TOTAL_BYTES = Number(process.env.BENCH_FLOOD_MIB ?? 1024) * MiB;
const LIMIT_BYTES = MiB;
const GiB = 1024 * MiB;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const READ_EVERY_MS = Number(process.env.BENCH_READ_EVERY_MS ?? 100);
const OWNER = { connectionId: "bench", sessionId: "throughput" };
const END = floodEnd(TOTAL_BYTES);

/** The baseline: spawn the generator and count what arrives on its stdout and stderr. */
async function plainRead() {
  gc();
  const liveAtStart = liveBytes();
  const memory = rssSampler();
  const cpu = process.cpuUsage();
  const started = now();
  const child = spawn(process.execPath, [FLOOD, String(TOTAL_BYTES)], {
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let bytes = 0;
  let tail = Buffer.alloc(0);
  const onData = (chunk) => {
    bytes += chunk.length;
    tail = chunk;
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const [exitCode] = await new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (...args) => resolve(args));
  });
  const ms = now() - started;
  const cpuMs = cpuMsSince(cpu);
  const { growth } = memory.stop();
  const retained = liveBytes() - liveAtStart;
  if (exitCode !== 0 || bytes !== TOTAL_BYTES || !tail.toString("utf8").endsWith(END)) {
    throw new Error(
      `plain read: exit ${exitCode}, ${bytes} of ${TOTAL_BYTES} bytes, tail ${JSON.stringify(tail.toString().slice(-40))}`,
    );
  }
  return {
    ms,
    mbps: TOTAL_BYTES / MB / (ms / 1000),
    cpuMs,
    rssGrowth: growth,
    rssRetained: retained,
  };
}

/** Bytes of live JS heap and buffers after a full GC (RSS does not shrink when memory is freed). */
function liveBytes() {
  gc();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

function cpuMsSince(start) {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}

/** Checks one output() snapshot taken while the flood runs; returns a description of a fault. */
function faultOf(snapshot) {
  const bytes = Buffer.byteLength(snapshot.output, "utf8");
  if (bytes > LIMIT_BYTES) return `${bytes} bytes retained, over the ${LIMIT_BYTES} limit`;
  if (snapshot.output.includes("\uFFFD")) return "U+FFFD in the output (a cut inside a character)";
  if (snapshot.totalBytes > LIMIT_BYTES && !snapshot.truncated)
    return `not truncated after ${snapshot.totalBytes} bytes`;
  return undefined;
}

/**
 * The cursor contract (README: `output` holds bytes [droppedBytes, totalBytes)): how many bytes
 * the output string is short of totalBytes - droppedBytes, 0 when it holds.
 */
function cursorGap(snapshot) {
  return snapshot.totalBytes - snapshot.droppedBytes - Buffer.byteLength(snapshot.output, "utf8");
}

/** The host: the same generator in a terminal, output() read every READ_EVERY_MS. */
async function throughHost() {
  const host = new TerminalHost({ maxOutputByteLimit: LIMIT_BYTES });
  gc();
  const liveAtStart = liveBytes();
  const memory = rssSampler();
  const checkpoints = [];
  const faults = [];
  const cursorGaps = [];
  let reads = 0;
  const cpu = process.cpuUsage();
  const started = now();
  const terminalId = await host.create(OWNER, {
    command: process.execPath,
    args: [FLOOD, String(TOTAL_BYTES)],
    outputByteLimit: LIMIT_BYTES,
  });
  const reader = setInterval(() => {
    const snapshot = host.output(OWNER, terminalId);
    reads++;
    const fault = faultOf(snapshot);
    if (fault) faults.push(`after ${snapshot.totalBytes} bytes: ${fault}`);
    const gap = cursorGap(snapshot);
    if (gap !== 0) cursorGaps.push(gap);
    checkpoints.push({ totalBytes: snapshot.totalBytes, rss: memory.sample() });
  }, READ_EVERY_MS);
  const exit = await host.waitForExit(OWNER, terminalId);
  const ms = now() - started;
  const cpuMs = cpuMsSince(cpu);
  clearInterval(reader);
  const final = host.output(OWNER, terminalId);
  const { start, growth } = memory.stop();
  const retained = liveBytes() - liveAtStart; // what is still held once the garbage is collected
  await host.release(OWNER, terminalId);
  await host.dispose();
  const finalBytes = Buffer.byteLength(final.output, "utf8");
  const finalFault = faultOf(final);
  const correct =
    exit.exitCode === 0 &&
    final.totalBytes === TOTAL_BYTES &&
    final.output.endsWith(END) &&
    final.truncated &&
    finalFault === undefined &&
    faults.length === 0;
  // RSS growth by the time a quarter of the output had passed, to show it does not scale with it.
  const quarter = checkpoints.find((point) => point.totalBytes >= TOTAL_BYTES / 4);
  return {
    ms,
    mbps: TOTAL_BYTES / MB / (ms / 1000),
    cpuMs,
    rssGrowth: growth,
    rssRetained: retained,
    rssGrowthAtQuarter: quarter ? quarter.rss - start : Number.NaN,
    reads,
    correct,
    cursorGaps,
    detail: {
      exit,
      totalBytes: final.totalBytes,
      finalBytes,
      truncated: final.truncated,
      faults,
      finalFault,
      finalGap: cursorGap(final),
    },
  };
}

export async function main() {
  header(
    `host-throughput: ${TOTAL_BYTES / MiB} MiB through one terminal, outputByteLimit 1 MiB`,
    `generator: node bench/support/flood.mjs (mixed 1-4 byte UTF-8, blocking 1 MiB writes); ${ROUNDS} rounds, medians`,
  );
  const plain = [];
  const hosted = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      plain.push(inFreshProcess("plain"));
      hosted.push(inFreshProcess("host"));
    } else {
      hosted.push(inFreshProcess("host"));
      plain.push(inFreshProcess("plain"));
    }
    const p = plain.at(-1);
    const h = hosted.at(-1);
    console.log(
      `round ${round + 1}: plain ${fmt.mbps(p.mbps)} (cpu ${cpuPerGiB(p)}, rss +${fmt.mb(p.rssGrowth)}), ` +
        `host ${fmt.mbps(h.mbps)} (cpu ${cpuPerGiB(h)}, rss +${fmt.mb(h.rssGrowth)}, ${h.reads} reads, ` +
        `${h.correct ? "correct" : "WRONG"})`,
    );
    if (!h.correct) console.log(`  host detail: ${JSON.stringify(h.detail)}`);
  }
  const plainMbps = median(plain.map((r) => r.mbps));
  const hostMbps = median(hosted.map((r) => r.mbps));
  const ratio = median(hosted.map((h, i) => h.mbps / plain[i].mbps));
  const plainCpu = median(plain.map((r) => r.cpuMs / (TOTAL_BYTES / GiB)));
  const hostCpu = median(hosted.map((r) => r.cpuMs / (TOTAL_BYTES / GiB)));
  const hostGrowth = Math.max(...hosted.map((r) => r.rssGrowth));
  const plainGrowth = Math.max(...plain.map((r) => r.rssGrowth));
  const quarterGrowth = Math.max(...hosted.map((r) => r.rssGrowthAtQuarter));
  const report = new Report();
  report.row({
    figure: "throughput",
    value: fmt.mbps(hostMbps),
    baseline: `${fmt.mbps(plainMbps)} plain read`,
    ratio: fmt.ratio(ratio),
    goal: ">= 0.80x plain",
    met: ratio >= 0.8,
  });
  report.row({
    figure: "  reader CPU time per GiB",
    value: fmt.ms(hostCpu),
    baseline: `${fmt.ms(plainCpu)} plain read`,
    ratio: fmt.ratio(hostCpu / plainCpu),
  });
  report.row({
    figure: "host RSS growth (peak, worst round)",
    value: `+${fmt.mb(hostGrowth)}`,
    baseline: `+${fmt.mb(plainGrowth)} plain read`,
    goal: "< 16 MB",
    met: hostGrowth < 16 * MB,
  });
  report.row({
    figure: `  same, after ${TOTAL_BYTES / 4 / MiB} MiB had passed`,
    value: `+${fmt.mb(quarterGrowth)}`,
  });
  report.row({
    figure: "  live heap + buffers after a GC at the end (worst)",
    value: `+${fmt.mb(Math.max(...hosted.map((r) => r.rssRetained)))}`,
    baseline: `+${fmt.mb(Math.max(...plain.map((r) => r.rssRetained)))} plain read`,
  });
  const gaps = hosted.flatMap((r) => r.cursorGaps);
  const reads = hosted.reduce((sum, r) => sum + r.reads, 0);
  report.row({
    figure: "cursor: output = bytes [droppedBytes, totalBytes)",
    value:
      gaps.length === 0
        ? "held"
        : `${gaps.length} reads short by ${[...new Set(gaps)].sort().join("/")} bytes`,
    baseline: `${reads} reads`,
    goal: "every read",
    met: gaps.length === 0,
  });
  const allCorrect = hosted.every((r) => r.correct);
  report.row({
    figure: "output() during and after the flood",
    value: allCorrect ? "correct" : "WRONG",
    baseline: `${reads} reads`,
    goal: "<= limit, valid, truncated, ends with the last bytes",
    met: allCorrect,
  });
  report.note(
    `peak RSS of the host round processes (VmHWM): ${hosted.map((r) => fmt.mb(r.vmHwm)).join(", ")}; ` +
      `plain: ${plain.map((r) => fmt.mb(r.vmHwm)).join(", ")}`,
  );
  if (gaps.length > 0) {
    report.note(
      "while a command runs, output() holds back an incomplete character at the end but totalBytes counts " +
        "its bytes, so an agent that reads increments by totalBytes loses that character",
    );
  }
  report.print();
}

/** One round in a new Node process: its result, with the process's peak RSS. */
function inFreshProcess(mode) {
  const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--round", mode], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 16 * MiB,
  });
  return JSON.parse(out.trim().split("\n").at(-1) ?? "");
}

async function round(mode) {
  const result = mode === "plain" ? await plainRead() : await throughHost();
  console.log(JSON.stringify({ ...result, vmHwm: vmHwm() ?? Number.NaN, rssEnd: rss() }));
}

const cpuPerGiB = (r) => `${(r.cpuMs / (TOTAL_BYTES / GiB)).toFixed(0)} ms/GiB`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === "--round") await round(process.argv[3]);
  else await main();
}
