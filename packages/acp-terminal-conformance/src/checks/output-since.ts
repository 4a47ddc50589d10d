import type { TerminalOutputResponse } from "@agentclientprotocol/sdk";
import { ACP_TERMINAL_META_KEY } from "acp-terminal/protocol";
import { sh, type Check, type CheckContext } from "../base/check.js";
import { CheckSkip, RpcFailure, expect } from "../base/probe.js";

interface SinceCursors {
  totalBytes?: unknown;
  droppedBytes?: unknown;
  fromByte?: unknown;
}

function cursorsOf(response: TerminalOutputResponse): SinceCursors {
  const ours = response._meta?.[ACP_TERMINAL_META_KEY];
  return typeof ours === "object" && ours !== null ? (ours as SinceCursors) : {};
}

/** Reads with `sinceByte` and checks the text and `fromByte` against what was printed. */
async function expectSince(
  ctx: CheckContext,
  id: string,
  sinceByte: number,
  output: string,
  fromByte: number,
): Promise<void> {
  const response = await ctx.probe.output(id, { [ACP_TERMINAL_META_KEY]: { sinceByte } });
  const cursors = cursorsOf(response);
  expect(
    response.output === output && cursors.fromByte === fromByte,
    `sinceByte ${sinceByte}: expected ${JSON.stringify(output)} from byte ${fromByte}, got ${JSON.stringify(response.output)} with _meta ${JSON.stringify(cursors)}`,
  );
}

/** What `terminal/output` with `_meta["acp-terminal"].sinceByte` must return (exact increments). */
export const outputSinceCheck: Check = {
  id: "ext-output-since",
  name: 'terminal/output honours _meta["acp-terminal"].sinceByte (exact increments)',
  kind: "extension",
  async run(ctx) {
    if (ctx.extension === undefined) {
      throw new CheckSkip(`the client does not advertise _meta["${ACP_TERMINAL_META_KEY}"]`);
    }
    if (!ctx.extension.outputSince) {
      throw new CheckSkip("the client does not advertise outputSince");
    }
    const { probe, embed } = ctx;
    // "abcdéfgh": 9 bytes, é at bytes 4..5.
    const id = await probe.create(sh("printf 'abcd\\303\\251fgh'"));
    await embed(id);
    await probe.waitForExit(id);
    await expectSince(ctx, id, 0, "abcdéfgh", 0);
    await expectSince(ctx, id, 4, "éfgh", 4);
    await expectSince(ctx, id, 5, "fgh", 6); // inside é: moved to the next character
    await expectSince(ctx, id, 9, "", 9);
    const beyond = await probe.output(id, { [ACP_TERMINAL_META_KEY]: { sinceByte: 10 } }).then(
      (response) => `answered ${JSON.stringify(response.output)}`,
      (error: unknown) => (error instanceof RpcFailure ? error.rpc.code : undefined),
    );
    expect(
      beyond === -32602,
      `sinceByte beyond totalBytes should be -32602, got ${JSON.stringify(beyond)}`,
    );
    // Dropped before it was read: the text starts at the first retained byte.
    const limited = await probe.create({ ...sh("printf 0123456789"), outputByteLimit: 4 });
    await probe.waitForExit(limited);
    await expectSince(ctx, limited, 2, "6789", 6);
    return "increments from byte 0, 4, 5 (inside a character), 9 (the end) and a dropped offset were exact; beyond the end was -32602";
  },
};
