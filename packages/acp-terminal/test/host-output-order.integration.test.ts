/**
 * Merged output is in the order the command wrote it: in pipe mode stdout and stderr are one
 * descriptor, as on a terminal. 100 runs of 100 alternating writes (10,000 writes) per form.
 */
import { describe, expect, it } from "vitest";
import type { CreateTerminalParams } from "../src/host/types.js";
import { makeHost, owner } from "./host-helpers.js";

const RUNS = 100;
const WRITES = 100;
/** Runs at once: enough to load the machine (which is what reorders two pipes), few enough to stay quick. */
const CONCURRENT = 10;

/** Odd lines to stdout, even lines to stderr, with no pause between them. */
const SCRIPT = `i=1; while [ $i -le ${WRITES} ]; do if [ $((i % 2)) -eq 1 ]; then echo $i; else echo $i >&2; fi; i=$((i + 1)); done`;
const EXPECTED = Array.from({ length: WRITES }, (_, i) => `${i + 1}\n`).join("");

async function misorderedRuns(params: CreateTerminalParams): Promise<number> {
  const host = makeHost();
  let misordered = 0;
  for (let start = 0; start < RUNS; start += CONCURRENT) {
    const outputs = await Promise.all(
      Array.from({ length: Math.min(CONCURRENT, RUNS - start) }, async () => {
        const id = await host.create(owner, params);
        expect(await host.waitForExit(owner, id)).toEqual({ exitCode: 0, signal: null });
        const { output } = host.output(owner, id);
        await host.release(owner, id);
        return output;
      }),
    );
    misordered += outputs.filter((output) => output !== EXPECTED).length;
  }
  return misordered;
}

describe("merged stdout and stderr keep the order the command wrote them", () => {
  it.each([
    ["a shell command line", { command: SCRIPT }],
    ["command + args", { command: "sh", args: ["-c", SCRIPT] }],
  ] satisfies [string, CreateTerminalParams][])(
    "%s: 0 of 100 runs of 100 alternating writes misordered",
    async (_, params) => {
      expect(await misorderedRuns(params)).toBe(0);
    },
  );
});
