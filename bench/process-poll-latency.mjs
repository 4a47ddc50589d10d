#!/usr/bin/env node
/**
 * Latency from a line being printed to acp-process seeing it, over ACP against our host
 * (support/terminal-client.mjs). The command prints its wall-clock time (performance.timeOrigin +
 * performance.now(), comparable across processes) every BENCH_LINE_INTERVAL_MS (default 25) ms:
 *   - background poll: when the item appears (output event) with nobody asking;
 *   - read(): a `read()` issued right after the line was printed (one refresh round trip), measured
 *     as: issue a read every interval and take, per line, the first read that returned it;
 *   - baseline: a tight loop of bare terminal/output calls on the same connection (the floor).
 * BENCH_LINES (default 200) lines per variant; p50/p95.
 */
import { terminalClientCapabilities } from "acp-terminal";
import { AcpTerminalProvider, ProcessManager } from "acp-process";
import { fmt, header, Report } from "./support/report.mjs";
import { summarize, wallMs } from "./support/stats.mjs";
import { startClient, TERMINAL_CLIENT } from "./support/wire.mjs";

const LINES = Number(process.env.BENCH_LINES ?? 200);
const INTERVAL_MS = Number(process.env.BENCH_LINE_INTERVAL_MS ?? 25);
const SESSION = "bench-session";
const PRINTER = {
  command: process.execPath,
  args: [
    "-e",
    `let n=0;const t=setInterval(()=>{process.stdout.write((performance.timeOrigin+performance.now()).toFixed(3)+"\\n");if(++n>=${LINES})clearInterval(t)},${INTERVAL_MS})`,
  ],
};

/** Latencies (ms) of the complete lines fed in pieces: `feed(text, seenAt)`; a partial line waits for its end. */
function lineLatencies() {
  const seen = [];
  let partial = "";
  return {
    seen,
    feed(text, seenAt) {
      const all = partial + text;
      const cut = all.lastIndexOf("\n") + 1;
      partial = all.slice(cut);
      for (const line of all.slice(0, cut).split("\n"))
        if (/^\d+\.\d+$/.test(line)) seen.push(seenAt - Number(line));
    },
  };
}

async function backgroundPoll(manager) {
  const lines = lineLatencies();
  const unsubscribe = manager.subscribe((event) => {
    if (event.type === "output" && event.item.kind === "output")
      lines.feed(event.item.text, wallMs());
  });
  const { run } = await manager.run({ sessionId: SESSION, ...PRINTER, yieldMs: 600_000 });
  unsubscribe();
  if (run.status !== "completed") throw new Error(`printer ended ${run.status}: ${run.error}`);
  return lines.seen;
}

async function readLoop(manager) {
  const lines = lineLatencies();
  const started = await manager.start({ sessionId: SESSION, ...PRINTER });
  let cursor = 0;
  for (;;) {
    const page = await manager.read(started.id, { sinceSeq: cursor });
    lines.feed(
      page.items
        .filter((i) => i.kind === "output")
        .map((i) => i.text)
        .join(""),
      wallMs(),
    );
    cursor = page.nextSeq;
    if (page.done) return lines.seen;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

async function bareLoop(client) {
  const lines = lineLatencies();
  const { terminalId } = await client.request("terminal/create", {
    sessionId: SESSION,
    ...PRINTER,
  });
  let readBytes = 0;
  for (;;) {
    const response = await client.request("terminal/output", { sessionId: SESSION, terminalId });
    const at = wallMs();
    const { totalBytes, droppedBytes } = response._meta["acp-terminal"];
    lines.feed(
      Buffer.from(response.output)
        .subarray(readBytes - droppedBytes)
        .toString(),
      at,
    );
    readBytes = totalBytes;
    if (response.exitStatus) break;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await client.request("terminal/release", { sessionId: SESSION, terminalId });
  return lines.seen;
}

header(
  "acp-process poll latency (ACP over stdio)",
  `${LINES} lines, one every ${INTERVAL_MS} ms, per variant`,
);
const report = new Report();
const wire = await startClient(TERMINAL_CLIENT);
try {
  const provider = new AcpTerminalProvider(wire.client, {
    sessionId: SESSION,
    clientCapabilities: terminalClientCapabilities(),
  });
  const manager = new ProcessManager({ provider, env: {}, sweepIntervalMs: 0 });
  const bare = summarize(await bareLoop(wire.client));
  const background = summarize(await backgroundPoll(manager));
  const reads = summarize(await readLoop(manager));
  for (const [name, figures] of /** @type {const} */ ([
    ["background poll (no reader)", background],
    ["read() loop", reads],
  ])) {
    report.row({
      figure: `${name} p50`,
      value: fmt.ms(figures.p50),
      baseline: `${fmt.ms(bare.p50)} bare output loop`,
      ratio: fmt.ratio(figures.p50 / bare.p50),
    });
    report.row({
      figure: `${name} p95`,
      value: fmt.ms(figures.p95),
      baseline: `${fmt.ms(bare.p95)} bare output loop`,
      ratio: fmt.ratio(figures.p95 / bare.p95),
    });
  }
  report.note(
    `samples: bare ${bare.n}, background ${background.n}, read() ${reads.n}; poll interval while output flows: 20 ms (tuning.pollMinMs)`,
  );
  await manager.dispose();
} finally {
  await wire.stop();
}
report.print();
