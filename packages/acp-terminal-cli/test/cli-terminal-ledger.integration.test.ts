/** followHost: a real TerminalHost's terminals reach a renderer, which reads their buffers itself. */
import { describe, expect, it } from "vitest";
import { JsonRenderer } from "../src/render/json-renderer.js";
import type { Output } from "../src/render/output.js";
import { followHost } from "../src/readers/terminal-ledger.js";
import { TerminalHost } from "acp-terminal";
import { until } from "../../../test/support/until.js";

const OWNER = { connectionId: "c", sessionId: "s" };

describe("followHost", () => {
  it("--json with a reader that keeps up gets every byte, even through a buffer 80 times smaller than the output", async () => {
    const host = new TerminalHost({ defaultOutputByteLimit: 64 * 1024 });
    const lines: string[] = [];
    const out: Output = {
      isTTY: false,
      lagging: false,
      write: (text, written) => {
        lines.push(typeof text === "string" ? text : Buffer.from(text).toString());
        written?.();
      },
      onDrain: () => {},
    };
    followHost(host, new JsonRenderer(out, { isTTY: false, write: () => {} }));
    try {
      const terminalId = await host.create(OWNER, {
        command: "sh",
        args: ["-c", "head -c 5000000 /dev/zero | tr '\\0' a"],
      });
      await host.waitForExit(OWNER, terminalId);
      await until(() => lines.some((line) => line.includes('"event":"exit"')), {
        message: "the exit event",
      });
      const events = lines.map(
        (line) => JSON.parse(line) as { event?: string; output?: string; skippedBytes?: number },
      );
      const outputs = events.filter((e) => e.event === "output");
      expect(outputs.filter((e) => e.skippedBytes !== undefined)).toEqual([]);
      expect(outputs.reduce((sum, e) => sum + e.output!.length, 0)).toBe(5_000_000);
      await host.release(OWNER, terminalId);
    } finally {
      await host.dispose();
    }
  }, 30_000);
});
