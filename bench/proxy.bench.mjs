#!/usr/bin/env node
/**
 * `acp-terminal proxy` beside the same run without it: what putting the proxy between an editor
 * and an agent costs.
 *
 * - latency: a request the proxy passes on (an extension method) and its answer, editor → agent →
 *   editor over real stdio, with this process as the editor (raw JSON-RPC lines) and
 *   support/echo-agent.mjs as the agent (answers at once, no SDK); the proxy serves terminals
 *   (the editor advertises none), as it would for such an editor. Alternating batches of 10,
 *   BENCH_ITERATIONS (1000) after BENCH_WARMUP (100); the added latency is the difference of
 *   the percentiles;
 * - flood: 100 MiB of v2 `terminal_output_chunk`s (test/fixtures/v2-agent.mjs flood, 64 KiB
 *   chunks as ready-made lines) passed through to a v2 editor, (1) the CLI (`acp-terminal run
 *   --protocol v2`, piped): from its tool call's first line to its terminal's exit line (the
 *   goal's figure), and from its start (the proxy's start included); (2) this
 *   process reading the lines raw: from the prompt to the turn's end (the proxy's cost alone);
 *   BENCH_ROUNDS (3) rounds, alternating which side goes first, medians;
 * - memory: the proxy's RSS at rest (initialized, a session open) and its peak (VmHWM) once the
 *   flood has passed, in the raw runs.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MB } from "./support/memory.mjs";
import { fmt, header, Report } from "./support/report.mjs";
import { alternate } from "./support/sampling.mjs";
import { median, now, percentile } from "./support/stats.mjs";

const CLI = fileURLToPath(new URL("../packages/acp-terminal-cli/dist/main.js", import.meta.url));
const ECHO_AGENT = fileURLToPath(new URL("./support/echo-agent.mjs", import.meta.url));
const V2_AGENT = fileURLToPath(new URL("../test/fixtures/v2-agent.mjs", import.meta.url));
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 1000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FLOOD_MIB = 100;

const proxied = (agent) => [CLI, "proxy", "--", ...agent];

/** A process spoken to in raw JSON-RPC lines: requests answered by id, other lines counted. */
class RawPeer {
  /** @type {Map<number, (message: unknown) => void>} */
  #waiting = new Map();
  #next = 0;
  #tail = "";
  /** @type {((chunk: Buffer) => void) | undefined} Called with every chunk read (the flood reader watches for the turn's end). */
  onChunk = undefined;

  constructor(args) {
    this.child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"] });
    this.child.stdout.on("data", (chunk) => {
      this.onChunk?.(chunk);
      if (this.#waiting.size === 0) {
        return;
      }
      const lines = (this.#tail + chunk.toString("latin1")).split("\n");
      this.#tail = lines.pop() ?? "";
      for (const line of lines) {
        if (line.length < 4096 && line.includes('"id"')) {
          const message = JSON.parse(line);
          this.#waiting.get(message.id)?.(message);
          this.#waiting.delete(message.id);
        }
      }
    });
  }

  request(method, params) {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  }

  async close() {
    this.child.stdin.end();
    if (this.child.exitCode === null) {
      await once(this.child, "exit");
    }
  }
}

/** `/proc/<pid>/status` figures of a process, in bytes. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB$`, "m").exec(status)?.[1]) * 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
}

async function latency() {
  const direct = new RawPeer([ECHO_AGENT]);
  const proxy = new RawPeer(proxied([process.execPath, ECHO_AGENT]));
  for (const peer of [direct, proxy]) {
    await peer.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    await peer.request("session/new", { cwd: process.cwd(), mcpServers: [] });
  }
  const params = { sessionId: "s1", data: "x".repeat(200), _meta: { trace: "00-1" } };
  const samples = await alternate(
    {
      direct: () => direct.request("_bench/echo", params),
      proxied: () => proxy.request("_bench/echo", params),
    },
    { warmup: WARMUP, iterations: ITERATIONS },
  );
  await Promise.all([direct.close(), proxy.close()]);
  return samples;
}

/** The raw v2 flood: ms from the prompt to the turn's end, and the proxy's memory when proxied. */
async function rawFlood(viaProxy) {
  const agent = [V2_AGENT, "flood", String(FLOOD_MIB), "0"];
  const peer = new RawPeer(viaProxy ? proxied([process.execPath, ...agent]) : agent);
  await peer.request("initialize", {
    protocolVersion: 2,
    info: { name: "bench", version: "1" },
    capabilities: {},
  });
  await peer.request("session/new", { cwd: process.cwd(), mcpServers: [] });
  const rest = viaProxy ? memoryOf(peer.child.pid).rss : undefined;
  let bytes = 0;
  let seen = "";
  const ended = /** @type {Promise<void>} */ (
    new Promise((resolve) => {
      peer.onChunk = (chunk) => {
        bytes += chunk.length;
        seen = (seen + chunk.toString("latin1", Math.max(0, chunk.length - 200))).slice(-400);
        if (seen.includes('"stopReason":"end_turn"')) {
          resolve();
        }
      };
    })
  );
  const started = now();
  void peer.request("session/prompt", { sessionId: "s1", prompt: [{ type: "text", text: "go" }] });
  await ended;
  const ms = now() - started;
  const peak = viaProxy ? memoryOf(peer.child.pid).hwm : undefined;
  await peer.close();
  return { ms, bytes, rest, peak };
}

/**
 * The CLI as a v2 editor: ms from its start to its terminal's exit line on stdout, and from its
 * tool call's first line (`▸ flood`, shown as the flood begins) to that exit line (the flood's
 * passage, without the processes' start).
 */
async function cliFlood(viaProxy) {
  const agent = [process.execPath, V2_AGENT, "flood", String(FLOOD_MIB), "0"];
  const line = (viaProxy ? [process.execPath, ...proxied(agent)] : agent).join(" ");
  const started = now();
  const child = spawn(process.execPath, [CLI, "run", "--protocol", "v2", "--agent", line, "go"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  let shownMs;
  let floodMs;
  let tail = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    tail = (tail + chunk).slice(-4096);
    if (floodMs === undefined && tail.includes("▸ flood")) floodMs = now() - started;
    if (shownMs === undefined && tail.includes("└ exit")) shownMs = now() - started;
  });
  const [code] = await once(child, "close");
  if (code !== 0 || shownMs === undefined || floodMs === undefined) {
    throw new Error(
      `acp-terminal run (${viaProxy ? "through the proxy" : "direct"}) exited ${code}`,
    );
  }
  return { shownMs, passageMs: shownMs - floodMs };
}

header(
  "acp-terminal proxy: the cost of the proxy between an editor and an agent",
  `request latency (${ITERATIONS} after ${WARMUP}), a ${FLOOD_MIB} MiB v2 flood passed through, the proxy's memory`,
);
const report = new Report();

const samples = await latency();
for (const [p, goal] of [
  [50, 0.3],
  [99, 2],
]) {
  const direct = percentile(samples.direct, p);
  const proxy = percentile(samples.proxied, p);
  report.row({
    figure: `request through the proxy p${p}`,
    value: fmt.ms(proxy),
    baseline: `${fmt.ms(direct)} direct`,
    ratio: `+${fmt.ms(proxy - direct)}`,
    goal: `<= +${goal} ms`,
    met: proxy - direct <= goal,
  });
}

/** @type {{direct: Array<{ms: number, bytes: number, rest: number | undefined, peak: number | undefined}>, proxied: Array<{ms: number, bytes: number, rest: number | undefined, peak: number | undefined}>}} */
const raw = { direct: [], proxied: [] };
/** @type {{direct: Array<{shownMs: number, passageMs: number}>, proxied: Array<{shownMs: number, passageMs: number}>}} */
const cli = { direct: [], proxied: [] };
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? [false, true] : [true, false];
  for (const viaProxy of order) {
    raw[viaProxy ? "proxied" : "direct"].push(await rawFlood(viaProxy));
  }
  for (const viaProxy of order) {
    cli[viaProxy ? "proxied" : "direct"].push(await cliFlood(viaProxy));
  }
}
const passageDirect = median(cli.direct.map((r) => r.passageMs));
const passageProxied = median(cli.proxied.map((r) => r.passageMs));
report.row({
  figure: `${FLOOD_MIB} MiB v2 flood, CLI as the editor: its tool call shown → exit line`,
  value: fmt.s(passageProxied),
  baseline: `${fmt.s(passageDirect)} direct`,
  ratio: fmt.ratio(passageProxied / passageDirect),
  goal: "<= 1.1x",
  met: passageProxied <= passageDirect * 1.1,
});
const cliDirect = median(cli.direct.map((r) => r.shownMs));
const cliProxied = median(cli.proxied.map((r) => r.shownMs));
report.row({
  figure: `${FLOOD_MIB} MiB v2 flood, CLI as the editor: start → exit line (with the proxy's start)`,
  value: fmt.s(cliProxied),
  baseline: `${fmt.s(cliDirect)} direct`,
  ratio: fmt.ratio(cliProxied / cliDirect),
});
const rawDirect = median(raw.direct.map((r) => r.ms));
const rawProxied = median(raw.proxied.map((r) => r.ms));
report.row({
  figure: `${FLOOD_MIB} MiB v2 flood, raw reader as the editor: prompt → turn end`,
  value: fmt.s(rawProxied),
  baseline: `${fmt.s(rawDirect)} direct`,
  ratio: fmt.ratio(rawProxied / rawDirect),
});
const growth = median(raw.proxied.map((r) => (r.peak ?? 0) - (r.rest ?? 0)));
report.row({
  figure: "proxy peak RSS under the flood, over the proxy at rest",
  value: `+${fmt.mb(growth)}`,
  baseline: `${fmt.mb(median(raw.proxied.map((r) => r.rest ?? 0)))} at rest`,
  goal: "<= +24 MB",
  met: growth <= 24 * MB,
});
report.note(
  `bytes read by the raw editor: ${raw.direct[0].bytes} direct, ${raw.proxied[0].bytes} through the proxy (the same lines)`,
);
report.print();
