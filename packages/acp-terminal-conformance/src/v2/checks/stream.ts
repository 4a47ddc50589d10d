import { passed, type V2Check } from "../base/check.js";
import { b64 } from "../base/session.js";
import { announce, SIZE, steps } from "./steps.js";

/** The large snapshot's size: well under the SDK's 32 MiB message limit once base64-encoded. */
export const LARGE_SNAPSHOT_BYTES = 1024 * 1024;

/** `size` bytes of numbered 16-byte lines (`line 0000001 x` CR LF), the last one cut short. */
function numberedLines(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let offset = 0, n = 1; offset < size; offset += 16, n++) {
    bytes.write(`line ${String(n).padStart(7, "0")} x\r\n`, offset, "latin1");
  }
  return bytes;
}

const chunksAroundSnapshot: V2Check = {
  id: "chunks-around-snapshot",
  name: "Chunks append to a terminal's output and a snapshot replaces it: chunks before and after a snapshot are accepted",
  kind: "robustness",
  async run(ctx) {
    const { session } = ctx;
    const id = await announce(ctx, "t", "printf 'one two three'");
    return passed(
      await steps(ctx, [
        [
          "two chunks before any snapshot",
          async () => {
            await session.chunk(id, "one\r\n");
            await session.chunk(id, "two\r\n");
          },
        ],
        [
          "a snapshot replacing them",
          () =>
            session.terminal({ terminalId: id, output: { data: b64("snapshot: one\r\ntwo\r\n") } }),
        ],
        ["a chunk after the snapshot", () => session.chunk(id, "three\r\n")],
        [
          "a shorter snapshot (content shrinks)",
          () => session.terminal({ terminalId: id, output: { data: b64("replaced\r\n") } }),
        ],
        [
          "an empty snapshot (content cleared)",
          () => session.terminal({ terminalId: id, output: { data: "" } }),
        ],
        [
          "a chunk splitting a UTF-8 character and an escape sequence",
          async () => {
            const euro = Buffer.from("€\x1b[1mbold\x1b[0m\r\n", "utf8");
            await session.chunk(id, euro.subarray(0, 2));
            await session.chunk(id, euro.subarray(2, 6));
            await session.chunk(id, euro.subarray(6));
          },
        ],
        ["exitStatus", () => session.terminal({ terminalId: id, exitStatus: { exitCode: 0 } })],
      ]),
    );
  },
};

const chunkBeforeAnnounce: V2Check = {
  id: "chunk-before-terminal-update",
  name: "A chunk may name a terminal before its first terminal_update (a new terminal's fields start unknown)",
  kind: "robustness",
  async run(ctx) {
    const { session } = ctx;
    const id = ctx.terminalId("t");
    await ctx.embed(id);
    return passed(
      await steps(ctx, [
        ["a chunk for a terminal never announced", () => session.chunk(id, "early bytes\r\n")],
        [
          "its terminal_update, after the chunk",
          () =>
            session.terminal({
              terminalId: id,
              command: "echo early",
              cwd: session.cwd,
              size: SIZE,
            }),
        ],
        ["exitStatus", () => session.terminal({ terminalId: id, exitStatus: { exitCode: 0 } })],
      ]),
    );
  },
};

const exitStatusRepeated: V2Check = {
  id: "exit-status-repeated",
  name: "exitStatus is an upsert: a repeated exitStatus and output after the exit are accepted",
  kind: "robustness",
  async run(ctx) {
    const { session } = ctx;
    const id = await announce(ctx, "t", "exit 3");
    return passed(
      await steps(ctx, [
        ["exitStatus", () => session.terminal({ terminalId: id, exitStatus: { exitCode: 3 } })],
        [
          "the same exitStatus again",
          () => session.terminal({ terminalId: id, exitStatus: { exitCode: 3 } }),
        ],
        ["a chunk after the exit (late output)", () => session.chunk(id, "late output\r\n")],
        [
          "a snapshot after the exit",
          () => session.terminal({ terminalId: id, output: { data: b64("final output\r\n") } }),
        ],
        [
          "a different exitStatus replacing the first",
          () =>
            session.terminal({ terminalId: id, exitStatus: { exitCode: null, signal: "SIGKILL" } }),
        ],
      ]),
    );
  },
};

const replayedState: V2Check = {
  id: "terminal-update-repeated",
  name: "A repeated full terminal_update (as on replay) is an idempotent upsert; size may change",
  kind: "robustness",
  async run(ctx) {
    const { session } = ctx;
    const id = ctx.terminalId("t");
    await ctx.embed(id);
    const full = {
      terminalId: id,
      command: "make",
      cwd: session.cwd,
      size: SIZE,
      output: { data: b64("compiling\r\n\x1b[32mdone\x1b[0m\r\n") },
      exitStatus: { exitCode: 0 },
    };
    return passed(
      await steps(ctx, [
        ["a full terminal_update for a new terminal", () => session.terminal(full)],
        ["the same full terminal_update again", () => session.terminal(full)],
        [
          "a size change",
          () => session.terminal({ terminalId: id, size: { cols: 132, rows: 40 } }),
        ],
        [
          "fields cleared with null",
          () => session.terminal({ terminalId: id, size: null, cwd: null, output: null }),
        ],
        ["the full terminal_update once more", () => session.terminal(full)],
      ]),
    );
  },
};

const largeSnapshot: V2Check = {
  id: "large-snapshot",
  name: `A large snapshot (${LARGE_SNAPSHOT_BYTES / 1024} KiB of output, under the SDK's 32 MiB message limit) is accepted`,
  kind: "robustness",
  async run(ctx) {
    const { session } = ctx;
    const id = await announce(ctx, "t", "seq 1 70000");
    const bytes = numberedLines(LARGE_SNAPSHOT_BYTES);
    return passed(
      await steps(ctx, [
        [
          `a ${bytes.length}-byte snapshot`,
          () => session.terminal({ terminalId: id, output: { data: b64(bytes) } }),
        ],
        ["a chunk after it", () => session.chunk(id, "after the large snapshot\r\n")],
        [
          "the same snapshot again, with exitStatus",
          () =>
            session.terminal({
              terminalId: id,
              output: { data: b64(bytes) },
              exitStatus: { exitCode: 0 },
            }),
        ],
      ]),
    );
  },
};

const backgroundListed: V2Check = {
  id: "background-listed",
  name: "A terminal listed as background work, then removed after its exitStatus, is accepted",
  kind: "robustness",
  async run(ctx) {
    const { session } = ctx;
    const id = await announce(ctx, "t", "sleep 1 (background)");
    return passed(
      await steps(ctx, [
        [
          "a state_update listing the terminal as background work",
          () => {
            session.setBackground([{ type: "terminal", terminalId: id }]);
            return session.state("running");
          },
        ],
        ["output while listed", () => session.chunk(id, "working in the background\r\n")],
        [
          "exitStatus, then a state_update without it",
          async () => {
            await session.terminal({ terminalId: id, exitStatus: { exitCode: 0 } });
            session.setBackground([]);
            await session.state("running");
          },
        ],
      ]),
    );
  },
};

/** Output, snapshots, exit and background listing, in the order they run. */
export const streamChecks: readonly V2Check[] = [
  chunksAroundSnapshot,
  chunkBeforeAnnounce,
  exitStatusRepeated,
  replayedState,
  largeSnapshot,
  backgroundListed,
];
