// What the recording client declares and does in each recording: the protocol version, the
// client capabilities (the terminal dialect the adapter chooses from), the prompt (which selects
// the stand-in's script) and the cancels it sends.
import { CANCEL_PROMPT } from "./http-stand-in.mjs";

export const DEMO_PROMPT = "run the steps, then the ticks in the background";

/**
 * @typedef {{
 *   name: string,
 *   about: string,
 *   protocol: 1 | 2,
 *   capabilities?: Record<string, unknown>,
 *   prompt: string,
 *   cancels?: Array<"session" | "terminal">,
 *   newSessionFails?: boolean,
 *   afterTurnMs?: number,
 *   adapters?: Array<"claude" | "codex">,
 * }} Dialect
 */

/** @type {Dialect[]} */
export const DIALECTS = [
  {
    name: "v1-terminal",
    about: "v1, clientCapabilities { terminal: true } and nothing else",
    protocol: 1,
    capabilities: { terminal: true },
    prompt: DEMO_PROMPT,
  },
  {
    name: "v1-meta-output",
    about: "v1, terminal: true and _meta.terminal_output: true",
    protocol: 1,
    capabilities: { terminal: true, _meta: { terminal_output: true } },
    prompt: DEMO_PROMPT,
  },
  {
    name: "v1-meta-delta",
    about: "v1, terminal: true and _meta.terminal_output_delta: true",
    protocol: 1,
    capabilities: { terminal: true, _meta: { terminal_output_delta: true } },
    prompt: DEMO_PROMPT,
  },
  {
    name: "v1-cancel",
    about:
      "v1, terminal: true and both _meta keys; a long loop in the background, the same in the foreground, session/cancel 1.5 s after the first shows",
    protocol: 1,
    capabilities: { terminal: true, _meta: { terminal_output: true, terminal_output_delta: true } },
    prompt: CANCEL_PROMPT,
    cancels: ["session"],
    afterTurnMs: 4_000,
  },
  {
    name: "v2",
    about: "protocol version 2 (agent-owned terminals)",
    protocol: 2,
    prompt: DEMO_PROMPT,
  },
  {
    name: "v2-cancel",
    about:
      "protocol version 2; a long loop in the background (terminal/cancel 1.5 s after it shows), the same in the foreground (session/cancel 1.5 s after it shows)",
    protocol: 2,
    prompt: CANCEL_PROMPT,
    cancels: ["terminal", "session"],
    afterTurnMs: 4_000,
  },
  {
    name: "new-error",
    about:
      "v1, terminal: true; a broken setup (see adapters.mjs breakNewSession) makes session/new fail; the client closes stdin at once",
    protocol: 1,
    capabilities: { terminal: true },
    prompt: DEMO_PROMPT,
    newSessionFails: true,
  },
];

/** The text that marks the long loop of the cancel scenario in any update that shows it. */
export const LONG_LOOP_MARK = "seq 1 100";
/**
 * How long the client listens after the turn (at most; it stops earlier after 3 s of silence): the
 * demo's background loop runs ~2.5 s and the agent reports it after the turn; after a cancel, the
 * loops that an adapter leaves running would print for 50 s, and a few seconds of that tell enough.
 */
export const AFTER_TURN_MS = 15_000;
/** How long after the long loop shows up the client cancels it. */
export const CANCEL_AFTER_MS = 1500;
