/**
 * The v2 terminal updates declared in acp-terminal/protocol stay the SDK's shapes: assignable both
 * ways to the `experimental/v2` (and `/unstable`) session update variants. A drift fails the type
 * check of the tests (`pnpm lint`, `tsc -b tsconfig.test.json`), not this run.
 */
import type { SessionUpdate } from "@agentclientprotocol/sdk/experimental/v2";
import type { SessionUpdate as UnstableSessionUpdate } from "@agentclientprotocol/sdk/experimental/v2/unstable";
import type { TerminalOutputChunk, TerminalUpdate } from "acp-terminal/protocol";
import { describe, expectTypeOf, it } from "vitest";

type Variant<U, K extends string> = Extract<U, { sessionUpdate: K }>;

describe("the v2 terminal update shapes", () => {
  it("terminal_update is the SDK's, both ways, stable and unstable", () => {
    expectTypeOf<TerminalUpdate>().toExtend<Variant<SessionUpdate, "terminal_update">>();
    expectTypeOf<Variant<SessionUpdate, "terminal_update">>().toExtend<TerminalUpdate>();
    expectTypeOf<Variant<UnstableSessionUpdate, "terminal_update">>().toExtend<TerminalUpdate>();
    expectTypeOf<TerminalUpdate>().toExtend<Variant<UnstableSessionUpdate, "terminal_update">>();
  });

  it("terminal_output_chunk is the SDK's, both ways", () => {
    expectTypeOf<TerminalOutputChunk>().toExtend<Variant<SessionUpdate, "terminal_output_chunk">>();
    expectTypeOf<Variant<SessionUpdate, "terminal_output_chunk">>().toExtend<TerminalOutputChunk>();
  });
});
