import type { V2CheckContext } from "../base/check.js";

/** The size every announced terminal reports. */
export const SIZE = { cols: 80, rows: 24 };

/** Announces a terminal the way a running command is announced, and shows it in the check. */
export async function announce(
  ctx: V2CheckContext,
  name: string,
  command: string,
): Promise<string> {
  const terminalId = ctx.terminalId(name);
  await ctx.session.terminal({ terminalId, command, cwd: ctx.session.cwd, size: SIZE });
  await ctx.embed(terminalId);
  return terminalId;
}

/** Runs the steps in order, each followed by a round trip the client must answer. */
export async function steps(
  ctx: V2CheckContext,
  list: readonly [string, () => Promise<unknown>][],
): Promise<string> {
  for (const [step, send] of list) {
    await send();
    await ctx.answered(step);
  }
  return `the client answered a request after each of ${list.length} steps: ${list.map(([s]) => s).join("; ")}`;
}
