// A stand-in for the Anthropic Messages API that drives Claude Code as an MCP host: the scripted
// model calls the `exec` and `process` tools of the MCP server named `terminals` (Claude Code
// offers them as mcp__terminals__exec and mcp__terminals__process) and reacts to what they answer,
// as a model would: while a command answers `status: "running"` it calls `process wait` again.
// The script is chosen by the prompt (see SCENARIOS); every request is logged, so the number of
// model turns a scenario took is the number of /v1/messages requests.
import { startMessagesStandIn, textsOf } from "./anthropic-stand-in.mjs";

export const EXEC_TOOL = "mcp__terminals__exec";
export const PROCESS_TOOL = "mcp__terminals__process";

/** Ticks once a second for `seconds`: a long command whose every line is new output. */
export const tickerCommand = (/** @type {number} */ seconds) =>
  `for i in $(seq 1 ${seconds}); do echo tick $i; sleep 1; done`;
export const SEQ_COMMAND = "seq 1 7000000";
/** The command the host is asked to approve and that no hook answers: headless, it is cancelled. */
export const UNANSWERED_COMMAND = "touch made-without-asking";
/** The wait the scripted model asks for: one call until the command exits. */
export const WAIT_MS = 120_000;

/**
 * What each prompt runs. `ticker N`: a N-second ticker through exec (yieldMs 10 s) and process
 * wait until it ends. `mcp scenario`: a 12-second ticker (yieldMs 3 s) waited for, seq 1 7000000,
 * then a command that needs an approval nobody gives.
 * @type {Record<string, (prompt: string) => Array<{ command: string, yieldMs?: number }>>}
 */
export const SCENARIOS = {
  ticker: (prompt) => [
    { command: tickerCommand(Number(/ticker (\d+)/.exec(prompt)?.[1] ?? 90)), yieldMs: 10_000 },
  ],
  "mcp scenario": () => [
    { command: tickerCommand(12), yieldMs: 3_000 },
    { command: SEQ_COMMAND },
    { command: UNANSWERED_COMMAND },
  ],
};

/** @param {{ keepBodies?: boolean }} [options] */
export function startClaudeMcpStandIn(options = {}) {
  return startMessagesStandIn(mainTurn, describe, options);
}

/**
 * The scripted model's next answer in the main conversation, or null for a side request.
 * @param {any} body
 * @returns {Array<Record<string, any>> | null}
 */
function mainTurn(body) {
  const tools = Array.isArray(body?.tools) ? body.tools : [];
  if (!tools.some((tool) => tool?.name === EXEC_TOOL)) {
    return null;
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const texts = messages.filter((m) => m?.role === "user").flatMap((m) => textsOf(m.content));
  if ((texts.at(-1) ?? "").includes("SUGGESTION MODE")) {
    return null;
  }
  const name = Object.keys(SCENARIOS).find((key) => texts.some((text) => text.includes(key)));
  if (name === undefined) {
    return [{ type: "text", text: "No scenario in the prompt." }];
  }
  const steps = SCENARIOS[name](texts.find((text) => text.includes(name)) ?? "");
  const calls = toolCalls(messages);
  const last = calls.at(-1);
  const answer = last ? parsed(last.result) : undefined;
  if (last && answer?.status === "running" && typeof answer.sessionId === "string") {
    const input = { action: "wait", sessionId: answer.sessionId, waitMs: WAIT_MS };
    return [toolUse(`toolu_standin_${calls.length + 1}`, PROCESS_TOOL, input)];
  }
  const execs = calls.filter((call) => call.name === EXEC_TOOL).length;
  const step = steps[execs];
  if (step === undefined) {
    const waits = calls.length - execs;
    return [{ type: "text", text: `Done: ${execs} exec and ${waits} process calls.` }];
  }
  return [toolUse(`toolu_standin_${calls.length + 1}`, EXEC_TOOL, step)];
}

/**
 * The tool calls of the conversation so far, each with the text of its result.
 * @param {any[]} messages
 */
function toolCalls(messages) {
  /** @type {Map<string, string>} */
  const results = new Map();
  for (const block of messages.flatMap((m) => (Array.isArray(m?.content) ? m.content : []))) {
    if (block?.type === "tool_result") {
      results.set(block.tool_use_id, textsOf(block.content).join(""));
    }
  }
  return messages
    .filter((m) => m?.role === "assistant" && Array.isArray(m.content))
    .flatMap((m) => m.content.filter((b) => b?.type === "tool_use"))
    .map((b) => ({ name: String(b.name), input: b.input, result: results.get(b.id) ?? "" }));
}

/** @param {string} text */
function parsed(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * @param {string} id
 * @param {string} name
 * @param {Record<string, unknown>} input
 */
function toolUse(id, name, input) {
  return { type: "tool_use", id, name, input };
}

/** @param {Array<Record<string, any>>} blocks */
function describe(blocks) {
  return blocks
    .map((b) => (b.type === "tool_use" ? `${b.name}(${JSON.stringify(b.input)})` : `"${b.text}"`))
    .join(" + ");
}
