/**
 * A recorded adapter session replayed against the whole client, in memory: the flags parsed as
 * the command line would be, the driver the negotiation picks, the Conversation, and a renderer
 * writing into buffers (`--json`'s, or text's, as a TTY's when asked).
 */
import { PassThrough } from "node:stream";
import path from "node:path";
import { parseCommand, type RunOptions } from "../src/command/args.js";
import { Conversation } from "../src/conversation/conversation.js";
import { onePrompt, PipedPrompts, type PromptSource } from "../src/conversation/prompts.js";
import { pickDriver } from "../src/drivers/pick-driver.js";
import { JsonRenderer } from "../src/render/json-renderer.js";
import type { Output } from "../src/render/output.js";
import { TextRenderer } from "../src/render/text-renderer.js";
import { recording, replay, type Entry, type ReplayOptions } from "./adapter-replay.js";

export function sink(isTTY = false): Output & { text: string } {
  return {
    text: "",
    isTTY,
    columns: 80,
    write(chunk) {
      this.text += chunk;
    },
  };
}

export function optionsFor(...flags: string[]): RunOptions {
  const parsed = parseCommand(
    ["run", "--agent", "replay", "--yes", ...flags, "go"],
    "/tmp/acp-recording/project",
    (base, p) => path.resolve(base, p),
  );
  if (parsed.kind !== "run") {
    throw new Error(`bad test flags: ${JSON.stringify(parsed)}`);
  }
  return parsed.options;
}

/** Stops the replay after the prompt's answer (v1) or the turn's idle end_turn state (v2). */
export const afterTheTurn: ReplayOptions["stopAfter"] = (entry: Entry) => {
  const result = entry.msg?.result as { stopReason?: unknown } | undefined;
  const params = entry.msg?.params as { update?: { state?: unknown; stopReason?: unknown } };
  return (
    typeof result?.stopReason === "string" ||
    (params?.update?.state === "idle" && typeof params.update.stopReason === "string")
  );
};

/** Prompts on a pipe that stays open until `end()`: the session lives on between turns. */
export function heldPrompts(...prompts: string[]): { source: PromptSource; end: () => void } {
  const input = new PassThrough();
  input.write(prompts.map((p) => `${p}\n`).join(""));
  return { source: new PipedPrompts(input), end: () => input.end() };
}

/** One recorded session replayed against the whole client. */
export async function run(
  name: string,
  flags: string[] = [],
  options: { stopAfter?: ReplayOptions["stopAfter"]; prompts?: PromptSource; tty?: boolean } = {},
) {
  const runOptions = optionsFor(...flags);
  const played = replay(
    recording(name),
    options.stopAfter === undefined ? {} : { stopAfter: options.stopAfter },
  );
  const out = sink(options.tty === true);
  const err = sink();
  const view = runOptions.json ? new JsonRenderer(out, err) : new TextRenderer(out, err);
  const picked = await pickDriver(
    runOptions,
    played.stream,
    { version: "0.0.0-test", terminalLogin: false },
    new AbortController().signal,
  );
  const conversation = new Conversation({
    options: runOptions,
    io: { stdin: new PassThrough(), stderr: new PassThrough(), version: "0.0.0-test" },
    view,
    driver: picked.driver,
    stream: picked.stream,
    signal: new AbortController().signal,
    prompts: options.prompts ?? onePrompt("go"),
  });
  return { conversation, done: conversation.run(), out, err, played, driver: picked.driver };
}
