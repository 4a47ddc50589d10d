import {
  ACP_TERMINAL_META_KEY,
  RESIZE_METHOD,
  SIGNAL_METHOD,
  WRITE_METHOD,
} from "acp-terminal/protocol";
import { sh, type Check, type CheckContext } from "../base/check.js";
import { CheckSkip, expect } from "../base/probe.js";
import { outputSinceCheck } from "./output-since.js";

function requireMethod(ctx: CheckContext, method: string): void {
  if (ctx.extension === undefined) {
    throw new CheckSkip(`the client does not advertise _meta["${ACP_TERMINAL_META_KEY}"]`);
  }
  if (!ctx.extension.methods.includes(method)) {
    throw new CheckSkip(`the client does not list ${method}`);
  }
}

const meta = (value: Record<string, unknown>) => ({ [ACP_TERMINAL_META_KEY]: value });

export const extensionChecks: Check[] = [
  {
    id: "ext-write-stdin",
    name: "_acp-terminal/write feeds stdin; eof closes it",
    kind: "extension",
    async run(ctx) {
      requireMethod(ctx, WRITE_METHOD);
      const { probe, embed } = ctx;
      const id = await probe.create({ command: "cat", args: [], _meta: meta({ stdin: true }) });
      await embed(id);
      await probe.ext(WRITE_METHOD, { terminalId: id, data: "hello through stdin\n" });
      await probe.outputUntil(
        id,
        (o) => o.output.includes("hello through stdin"),
        "expected cat to echo the written line",
      );
      await probe.ext(WRITE_METHOD, { terminalId: id, eof: true });
      const status = await probe.waitForExit(id);
      expect(
        status.exitCode === 0,
        `cat should exit 0 at end-of-file, got ${JSON.stringify(status)}`,
      );
      return "cat echoed the written line and exited at eof";
    },
  },
  {
    id: "ext-pty-resize",
    name: "_acp-terminal/resize changes a PTY's size (stty size)",
    kind: "extension",
    async run(ctx) {
      requireMethod(ctx, RESIZE_METHOD);
      if (ctx.extension?.pty !== true) {
        throw new CheckSkip("the client does not offer PTY terminals");
      }
      const { probe, embed } = ctx;
      const id = await probe.create({
        ...sh("stty size; read line; stty size"),
        _meta: meta({ pty: { cols: 100, rows: 30 }, stdin: true }),
      });
      await embed(id);
      await probe.outputUntil(
        id,
        (o) => o.output.includes("30 100"),
        'expected "30 100" from stty size',
      );
      await probe.ext(RESIZE_METHOD, { terminalId: id, cols: 120, rows: 40 });
      await probe.ext(WRITE_METHOD, { terminalId: id, data: "\r" });
      await probe.waitForExit(id);
      const { output } = await probe.output(id);
      expect(
        output.includes("40 120"),
        `expected "40 120" after resize, got ${JSON.stringify(output)}`,
      );
      return "stty size said 30 100, then 40 120 after resize";
    },
  },
  {
    id: "ext-signal-sigint",
    name: "_acp-terminal/signal delivers SIGINT",
    kind: "extension",
    async run(ctx) {
      requireMethod(ctx, SIGNAL_METHOD);
      const { probe, embed } = ctx;
      const id = await probe.create(
        sh("trap 'echo got-sigint; exit 130' INT; echo ready; while :; do sleep 1; done"),
      );
      await embed(id);
      await probe.outputUntil(id, (o) => o.output.includes("ready"), 'expected "ready"');
      await probe.ext(SIGNAL_METHOD, { terminalId: id, signal: "SIGINT" });
      const status = await probe.waitForExit(id);
      const { output } = await probe.output(id);
      expect(output.includes("got-sigint"), `the trap did not run: ${JSON.stringify(output)}`);
      expect(
        status.exitCode === 130,
        `expected exit code 130 from the trap, got ${JSON.stringify(status)}`,
      );
      return "the command's SIGINT trap ran and it exited 130";
    },
  },
  {
    id: "ext-kill-signal",
    name: 'terminal/kill honours _meta["acp-terminal"].signal',
    kind: "extension",
    async run(ctx) {
      if (ctx.extension === undefined) {
        throw new CheckSkip(`the client does not advertise _meta["${ACP_TERMINAL_META_KEY}"]`);
      }
      const { probe, embed } = ctx;
      const id = await probe.create({ command: "sleep", args: ["60"] });
      await embed(id);
      await probe.kill(id, meta({ signal: "SIGINT" }));
      const status = await probe.waitForExit(id);
      expect(status.signal === "SIGINT", `expected signal SIGINT, got ${JSON.stringify(status)}`);
      return "killed with SIGINT as asked";
    },
  },
  outputSinceCheck,
];
