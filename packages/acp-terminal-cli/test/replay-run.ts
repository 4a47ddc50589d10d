/**
 * A recorded adapter session replayed against the whole client, in memory: the flags parsed as
 * the command line would be, the driver the negotiation picks, the Conversation, and a renderer
 * writing into buffers (`--json`'s, or text's, as a TTY's when asked).
 */
import { PassThrough, Writable } from "node:stream";
import path from "node:path";
import { parseCommand, type RunOptions } from "../src/command/args.js";
import { readPermissionPolicy } from "../src/command/permission-policy.js";
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
    ["run", "--agent", "replay", ...flags, "go"],
    "/tmp/acp-recording/project",
    (base, p) => path.resolve(base, p),
  );
  if (parsed.kind !== "run") {
    throw new Error(`bad test flags: ${JSON.stringify(parsed)}`);
  }
  return parsed.options;
}

/** The policy given by --permission-policy read, as run-command reads it before the session. */
function withPolicy(options: RunOptions): RunOptions {
  const source = options.permissions?.policySource;
  if (source === undefined) {
    return options;
  }
  const policy = readPermissionPolicy(source, options.cwd);
  if (typeof policy === "string") {
    throw new Error(policy);
  }
  return { ...options, permissions: { ...options.permissions, policy } };
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
  options: {
    stopAfter?: ReplayOptions["stopAfter"];
    prompts?: PromptSource;
    tty?: boolean;
    /** A person at a TTY answers each question (its whole text) with the line this returns. */
    answer?: (question: string) => string;
    /** `false`: no --yes and no person, as a piped run without --yes (the flags' rules decide). */
    yes?: false;
    /** Options run-command sets after parsing (the known agent's name: `ownCommands`). */
    resolved?: Partial<RunOptions>;
  } = {},
) {
  // Everything allowed (--yes), unless a person answers or `yes: false`.
  const yes = options.answer === undefined && options.yes !== false;
  const runOptions = {
    ...withPolicy(optionsFor(...(yes ? ["--yes"] : []), ...flags)),
    ...options.resolved,
  };
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
  if ("restartWithV1" in picked) {
    throw new Error(`the adapter answered v2 in v1's format: ${picked.restartWithV1}`);
  }
  const asked = options.answer === undefined ? undefined : person(options.answer);
  const conversation = new Conversation({
    options: runOptions,
    io: asked?.io ?? { stdin: new PassThrough(), stderr: new PassThrough(), version: "0.0.0-test" },
    view,
    driver: picked.driver,
    stream: picked.stream,
    signal: new AbortController().signal,
    prompts: options.prompts ?? onePrompt("go"),
  });
  return {
    conversation,
    done: conversation.run(),
    out,
    err,
    played,
    driver: picked.driver,
    questions: asked?.questions ?? [],
  };
}

/**
 * A person at a TTY: the questions written on "stderr" (each up to its `Choose …:` line) are
 * kept, and each is answered on "stdin" with the line `answer` gives, once it has been shown.
 */
function person(answer: (question: string) => string) {
  const questions: string[] = [];
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  let shown = "";
  const stderr = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        shown += chunk.toString("utf8");
        if (/Choose 1-\d+ \([^)]*\): $/.test(shown)) {
          const question = shown;
          shown = "";
          questions.push(question);
          setImmediate(() => stdin.write(`${answer(question)}\n`));
        }
        done();
      },
    }),
    { isTTY: true },
  );
  return { questions, io: { stdin, stderr, version: "0.0.0-test" } };
}
