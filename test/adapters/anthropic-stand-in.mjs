// A stand-in for the Anthropic Messages API that Claude Code (inside claude-agent-acp) talks to.
// The main conversation (a request that offers the Bash tool) follows a script chosen by the
// prompt: the demo runs a foreground command, then a background loop, then answers in text; the
// cancel scenario runs a long loop in the background, then the same loop in the foreground (the
// client cancels them). Side requests (a title, prompt suggestions) get a short plain text,
// count_tokens a fixed count.
import {
  BACKGROUND_COMMAND,
  CANCEL_PROMPT,
  FOREGROUND_COMMAND,
  LONG_COMMAND,
  startStandIn,
} from "./http-stand-in.mjs";
import { claudeScript, scriptOf } from "./scripted-turns.mjs";

const MODEL = "claude-sonnet-4-5";

/**
 * @param {{ keepBodies?: boolean, refuse?: boolean }} [options] `refuse` answers every request
 *   with 401, as an API that rejects the key would
 */
export function startAnthropicStandIn(options = {}) {
  return startMessagesStandIn(mainTurn, describe, options);
}

/**
 * A Messages API whose model is `turnOf`: count_tokens gets a fixed count, anything but a POST to
 * /v1/messages a 404, and each message request the blocks `turnOf(body)` gives (null: a side
 * request, answered with a short text), streamed when asked; `describeBlocks` says them in the log.
 * @param {(body: any) => Array<Record<string, any>> | null} turnOf
 * @param {(blocks: Array<Record<string, any>>) => string} describeBlocks
 * @param {{ keepBodies?: boolean, refuse?: boolean }} [options]
 */
export function startMessagesStandIn(turnOf, describeBlocks, options = {}) {
  let messageCount = 0;
  return startStandIn(async ({ method, path, body }, reply) => {
    if (options.refuse) {
      reply.status(401, {
        type: "error",
        error: { type: "authentication_error", message: "invalid x-api-key" },
      });
      return "401 refused";
    }
    if (method === "POST" && path.startsWith("/v1/messages/count_tokens")) {
      reply.status(200, { input_tokens: 100 });
      return "count_tokens";
    }
    if (method !== "POST" || !path.startsWith("/v1/messages")) {
      reply.status(404, { type: "error", error: { type: "not_found_error", message: path } });
      return "404";
    }
    messageCount += 1;
    const turn = turnOf(body);
    const { blocks, stopReason } = await answerMessages(reply, body, messageCount, turn);
    return `${turn ? "main" : "side"} ${stopReason} ${describeBlocks(blocks)}`;
  }, options);
}

/**
 * Answers a Messages request with `turn`'s blocks (a short text when it is null), streamed when
 * the request asks so, as the `count`th message.
 * @param {import("./http-stand-in.mjs").Reply} reply
 * @param {any} body
 * @param {number} count
 * @param {Array<Record<string, any>> | null} turn
 */
export async function answerMessages(reply, body, count, turn) {
  const id = `msg_standin_${count}`;
  const blocks = turn ?? [{ type: "text", text: "Stand-in answer" }];
  const stopReason = blocks.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn";
  if (body?.stream === true) {
    await reply.events(messageEvents(id, blocks, stopReason), 5);
  } else {
    reply.status(200, message(id, blocks, stopReason));
  }
  return { blocks, stopReason };
}

/**
 * The scripted answer of the main conversation, or null for a side request.
 * @param {any} body
 * @returns {Array<Record<string, any>> | null}
 */
function mainTurn(body) {
  const tools = Array.isArray(body?.tools) ? body.tools : [];
  if (!tools.some((tool) => tool?.name === "Bash")) {
    return null;
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const texts = messages.filter((m) => m?.role === "user").flatMap((m) => textsOf(m.content));
  // Claude Code forks the conversation, tools and all, to guess the user's next prompt.
  if ((texts.at(-1) ?? "").includes("SUGGESTION MODE")) {
    return null;
  }
  const results = messages.flatMap((m) =>
    Array.isArray(m?.content) ? m.content.filter((b) => b?.type === "tool_result") : [],
  ).length;
  const script = scriptOf(texts);
  if (script !== undefined) {
    const cwd = /working directory: ([^\s"\\]+)/i.exec(JSON.stringify(body.system ?? ""));
    return claudeScript(script, results, cwd?.[1] ?? ".");
  }
  const cancel = texts.some((text) => text.includes(CANCEL_PROMPT));
  if (cancel) {
    // Claude offers terminal/cancel (v2) for a background command only.
    if (results === 0) {
      return [bash("toolu_standin_long_bg", LONG_COMMAND, "Count to 100 in the background", true)];
    }
    if (results === 1) {
      return [bash("toolu_standin_long_fg", LONG_COMMAND, "Count to 100")];
    }
    return [{ type: "text", text: "Stopped the loop." }];
  }
  if (results === 0) {
    return [
      { type: "text", text: "I'll run the steps." },
      bash("toolu_standin_steps", FOREGROUND_COMMAND, "Print three steps"),
    ];
  }
  if (results === 1) {
    return [bash("toolu_standin_ticks", BACKGROUND_COMMAND, "Tick in the background", true)];
  }
  const last = texts.at(-1) ?? "";
  if (last.includes("<task-notification")) {
    return [{ type: "text", text: "The background loop finished." }];
  }
  return [{ type: "text", text: "Ran the steps; the ticks go on in the background." }];
}

/**
 * The texts of a message's content (a string, or blocks of which the text ones count).
 * @param {unknown} content
 */
export function textsOf(content) {
  if (typeof content === "string") {
    return [content];
  }
  if (!Array.isArray(content)) {
    return [];
  }
  return content.filter((b) => b?.type === "text").map((b) => String(b.text));
}

/**
 * @param {string} id
 * @param {string} command
 * @param {string} description
 * @param {boolean} [background]
 */
function bash(id, command, description, background = false) {
  return {
    type: "tool_use",
    id,
    name: "Bash",
    input: { command, description, ...(background ? { run_in_background: true } : {}) },
  };
}

/** @param {Array<Record<string, any>>} blocks */
function describe(blocks) {
  return blocks
    .map((b) => (b.type === "tool_use" ? `Bash(${b.input.command})` : `"${b.text}"`))
    .join(" + ");
}

const USAGE = {
  input_tokens: 100,
  output_tokens: 20,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
};

/**
 * @param {string} id
 * @param {Array<Record<string, any>>} blocks
 * @param {string} stopReason
 */
function message(id, blocks, stopReason) {
  return {
    id,
    type: "message",
    role: "assistant",
    model: MODEL,
    content: blocks,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: USAGE,
  };
}

/**
 * The SSE events of a streamed message: tool inputs arrive as input_json_delta.
 * @param {string} id
 * @param {Array<Record<string, any>>} blocks
 * @param {string} stopReason
 * @returns {Array<[string, unknown]>}
 */
function messageEvents(id, blocks, stopReason) {
  /** @type {Array<[string, unknown]>} */
  const events = [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          ...message(id, [], stopReason),
          stop_reason: null,
          usage: { ...USAGE, output_tokens: 1 },
        },
      },
    ],
  ];
  blocks.forEach((block, index) => {
    if (block.type === "tool_use") {
      events.push([
        "content_block_start",
        {
          type: "content_block_start",
          index,
          content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
        },
      ]);
      events.push([
        "content_block_delta",
        {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
        },
      ]);
    } else {
      events.push([
        "content_block_start",
        { type: "content_block_start", index, content_block: { type: "text", text: "" } },
      ]);
      events.push([
        "content_block_delta",
        { type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } },
      ]);
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  events.push([
    "message_delta",
    {
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: USAGE.output_tokens },
    },
  ]);
  events.push(["message_stop", { type: "message_stop" }]);
  return events;
}
