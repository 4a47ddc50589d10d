#!/usr/bin/env node
/**
 * PTY output through the terminal emulator (`PtyScreen`, @xterm/headless) beside the previous
 * path (`renderPtyText`: strip-ansi and `\r` overwrites) in the same run.
 *
 * 1. Throughput: a PTY command prints BENCH_PTY_MIB (default 50) MiB of build-log-like output
 *    with escape sequences (support/pty-mixed.mjs) into an OutputBuffer of 1 MiB, read through
 *    node-pty as the host reads it. Four readers, alternating order per round (BENCH_ROUNDS,
 *    default 3; medians): no rendering (the PTY's own pace), strip-ansi rendering every 100 ms,
 *    emulator every 100 ms (what `terminal/output` polling costs: with its 50 ms deadline a read
 *    skips to the newest bytes it can parse), and the emulator every 100 ms without a deadline
 *    (every byte parsed: the emulator's own throughput). Each checks its last read ends with the
 *    generator's END line.
 * 2. The cost of one read with 1 KiB and 1 MiB retained: the first read (with the default
 *    deadline, and without one: parsing all of it), a read after one more line arrived, and a
 *    read with nothing new; beside strip-ansi rendering of the same retained text after one more
 *    line. And a `sinceByte` increment of one line, rendered alone.
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { OutputBuffer } from "../packages/acp-terminal/dist/output/output-buffer.js";
import { PtyScreen } from "../packages/acp-terminal/dist/output/pty-screen.js";
import { renderPtyText } from "./support/pty-text.mjs";
import { MiB } from "./support/memory.mjs";
import { mixedBlock } from "./support/pty-mixed.mjs";
import { fmt, header, Report } from "./support/report.mjs";
import { median, now } from "./support/stats.mjs";

const pty = createRequire(new URL("../packages/acp-terminal/package.json", import.meta.url))(
  "node-pty",
);
const GENERATOR = fileURLToPath(new URL("./support/pty-mixed.mjs", import.meta.url));
const TOTAL_BYTES = Number(process.env.BENCH_PTY_MIB ?? 50) * MiB;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const READ_EVERY_MS = 100;
const LIMIT = MiB;
const END = `END ${TOTAL_BYTES}`;
/** A deadline no read reaches: every byte is parsed (the emulator's own throughput). */
const NO_DEADLINE_MS = 3_600_000;

const readers = {
  "no rendering": () => ({ onChunk() {}, read: () => "" }),
  "strip-ansi every 100 ms": (buffer) => ({
    onChunk() {},
    read: () => renderPtyText(buffer.text(), buffer.droppedBytes > 0),
  }),
  "emulator every 100 ms": (buffer) => {
    const screen = new PtyScreen(buffer, { cols: 80, rows: 24 });
    return { onChunk() {}, read: () => screen.snapshot().output };
  },
  "emulator every 100 ms, no deadline": (buffer) => {
    const screen = new PtyScreen(buffer, { cols: 80, rows: 24 }, { deadlineMs: NO_DEADLINE_MS });
    return { onChunk() {}, read: () => screen.snapshot().output };
  },
};

async function throughput(name) {
  const buffer = new OutputBuffer(LIMIT);
  const reader = readers[name](buffer);
  const cpu = process.cpuUsage();
  const started = now();
  const child = pty.spawn(process.execPath, [GENERATOR, String(TOTAL_BYTES)], {
    cols: 80,
    rows: 24,
    encoding: null,
  });
  let endedAt;
  child.onData((chunk) => {
    buffer.append(chunk);
    reader.onChunk();
    if (endedAt === undefined && Buffer.from(chunk).toString("latin1").includes(END))
      endedAt = now();
  });
  const timer = setInterval(() => reader.read(), READ_EVERY_MS);
  const exitCode = await new Promise((resolve) =>
    child.onExit(({ exitCode }) => resolve(exitCode)),
  );
  clearInterval(timer);
  buffer.end();
  const last = reader.read();
  const ms = (endedAt ?? Number.NaN) - started; // to the last byte read, not to the exit (a second later)
  const { user, system } = process.cpuUsage(cpu);
  if (exitCode !== 0 || buffer.totalBytes < TOTAL_BYTES)
    throw new Error(`${name}: exit ${exitCode}, ${buffer.totalBytes} bytes`);
  if (name !== "no rendering" && !last.trimEnd().endsWith(END))
    throw new Error(
      `${name}: last read ends ${JSON.stringify(last.slice(-60))}; buffer ends ${JSON.stringify(buffer.text().slice(-30))}, ${buffer.totalBytes} bytes`,
    );
  return { mbps: buffer.totalBytes / 1e6 / (ms / 1000), cpuMs: (user + system) / 1000 };
}

function timeRead(iterations, setup, read) {
  const samples = [];
  for (let i = 0; i < iterations; i++) {
    const state = setup();
    const started = now();
    read(state);
    samples.push(now() - started);
  }
  return median(samples);
}

function readCosts(retained) {
  const content = mixedBlock(retained).subarray(0, retained);
  const line = Buffer.from("\x1b[32mok\x1b[0m one more line of output from the command\r\n");
  const filled = () => {
    const buffer = new OutputBuffer(LIMIT);
    buffer.append(content);
    return buffer;
  };
  const iterations = retained > 64 * 1024 ? 7 : 50;
  const first = timeRead(
    iterations,
    () => new PtyScreen(filled(), { cols: 80, rows: 24 }),
    (screen) => screen.snapshot(),
  );
  const probe = new PtyScreen(filled(), { cols: 80, rows: 24 }).snapshot();
  const firstShare =
    Buffer.byteLength(probe.output) /
    Buffer.byteLength(
      new PtyScreen(filled(), { cols: 80, rows: 24 }, { deadlineMs: NO_DEADLINE_MS }).snapshot()
        .output,
    );
  const whole = timeRead(
    iterations,
    () => new PtyScreen(filled(), { cols: 80, rows: 24 }, { deadlineMs: NO_DEADLINE_MS }),
    (screen) => screen.snapshot(),
  );
  const warm = () => {
    const buffer = filled();
    const screen = new PtyScreen(buffer, { cols: 80, rows: 24 }, { deadlineMs: NO_DEADLINE_MS });
    screen.snapshot();
    buffer.append(line);
    return screen;
  };
  const next = timeRead(iterations, warm, (screen) => screen.snapshot());
  const same = timeRead(
    iterations,
    () => {
      const screen = warm();
      screen.snapshot();
      return screen;
    },
    (screen) => screen.snapshot(),
  );
  const strip = timeRead(
    iterations,
    () => {
      const buffer = filled();
      renderPtyText(buffer.text());
      buffer.append(line);
      return buffer;
    },
    (buffer) => renderPtyText(buffer.text()),
  );
  return { first, firstShare, whole, next, same, strip };
}

header(
  `PTY throughput: ${TOTAL_BYTES / MiB} MiB of build-log output through node-pty into a 1 MiB OutputBuffer, 80x24, ${ROUNDS} rounds (medians)`,
  "MB/s to the last byte and the reader's CPU; reading every 100 ms with strip-ansi (the previous path) is the baseline",
);
const names = Object.keys(readers);
/** @type {Record<string, { mbps: number; cpuMs: number }[]>} */
const results = Object.fromEntries(names.map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? names : [...names].reverse();
  for (const name of order) results[name].push(await throughput(name));
}
const throughputReport = new Report();
const base = median(results["no rendering"].map((r) => r.mbps));
const stripMbps = median(results["strip-ansi every 100 ms"].map((r) => r.mbps));
for (const name of names) {
  const mbps = median(results[name].map((r) => r.mbps));
  throughputReport.row({
    figure: `PTY throughput, ${name}`,
    value: `${fmt.mbps(mbps)}, CPU ${fmt.s(median(results[name].map((r) => r.cpuMs)))}`,
    baseline: name === "no rendering" ? "" : `${fmt.mbps(stripMbps)} strip-ansi`,
    ratio:
      name === "no rendering"
        ? ""
        : `${fmt.ratio(mbps / stripMbps)} (${fmt.ratio(mbps / base)} of no rendering)`,
  });
}
throughputReport.print();

header(
  "One read of a PTY terminal's output with 1 KiB and 1 MiB retained (median)",
  "the emulator's first read, a read after one more line, a read with nothing new; beside strip-ansi rendering after one more line",
);
const readReport = new Report();
for (const [label, retained] of [
  ["1 KiB", 1024],
  ["1 MiB", MiB],
]) {
  const { first, firstShare, whole, next, same, strip } = readCosts(retained);
  readReport.row({
    figure: `${label} retained, emulator: first read (50 ms deadline; renders ${(firstShare * 100).toFixed(0)}% of the text)`,
    value: fmt.ms(first),
    baseline: `${fmt.ms(strip)} strip-ansi`,
    ratio: fmt.ratio(first / strip),
  });
  readReport.row({
    figure: `${label} retained, emulator: first read, no deadline (parses it all)`,
    value: fmt.ms(whole),
    baseline: `${fmt.ms(strip)} strip-ansi`,
    ratio: fmt.ratio(whole / strip),
  });
  readReport.row({
    figure: `${label} retained, emulator: read after one more line`,
    value: fmt.ms(next),
    baseline: `${fmt.ms(strip)} strip-ansi`,
    ratio: fmt.ratio(next / strip),
  });
  readReport.row({
    figure: `${label} retained, emulator: read with nothing new`,
    value: fmt.ms(same),
    baseline: `${fmt.ms(strip)} strip-ansi`,
    ratio: fmt.ratio(same / strip),
  });
}
{
  // A `sinceByte` read of one new line: rendered alone on the terminal's second (scratch) screen.
  const screen = new PtyScreen(new OutputBuffer(LIMIT), { cols: 80, rows: 24 });
  const line = "\x1b[32mok\x1b[0m one more line of output from the command\r\n";
  const emulator = timeRead(
    200,
    () => screen,
    (s) => s.renderIncrement(line, false),
  );
  const strip = timeRead(
    200,
    () => line,
    (text) => renderPtyText(text),
  );
  readReport.row({
    figure: "sinceByte increment of one line, emulator",
    value: fmt.ms(emulator),
    baseline: `${fmt.ms(strip)} strip-ansi`,
    ratio: fmt.ratio(emulator / strip),
  });
}
readReport.print();
