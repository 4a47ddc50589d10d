// A stand-in for the OpenAI Responses API that codex (inside codex-acp) talks to. The scripted
// model calls codex's unified exec tools: the demo runs a foreground command, then a loop that
// outlives its yield (codex keeps it as a background session and answers with its session id),
// then polls that session with write_stdin, then answers in text. The cancel scenario runs a long
// loop that outlives its yield (a background session), then the same loop in the foreground (the
// client cancels them).
import {
  BACKGROUND_COMMAND,
  CANCEL_PROMPT,
  FOREGROUND_COMMAND,
  LONG_COMMAND,
  startStandIn,
} from "./http-stand-in.mjs";
import { codexScript, scriptOf } from "./scripted-turns.mjs";

const MODEL = "gpt-5.1-codex";

/** @param {{ keepBodies?: boolean, refuse?: boolean }} [options] */
export function startOpenAiStandIn(options = {}) {
  let responseCount = 0;
  return startStandIn(async ({ method, path, body }, reply) => {
    if (options.refuse) {
      reply.status(401, {
        error: { message: "Incorrect API key provided", type: "invalid_request_error" },
      });
      return "401 refused";
    }
    if (method === "GET" && path.startsWith("/v1/models")) {
      reply.status(200, { object: "list", data: [{ id: MODEL, object: "model" }] });
      return "models";
    }
    if (method !== "POST" || !path.startsWith("/v1/responses")) {
      reply.status(404, { error: { message: `no ${method} ${path} here`, type: "not_found" } });
      return "404";
    }
    responseCount += 1;
    const item = nextItem(body, responseCount);
    await reply.events(responseEvents(`resp_standin_${responseCount}`, item), 5);
    return item.type === "function_call" ? `${item.name}(${item.arguments})` : `"${item.text}"`;
  }, options);
}

/**
 * @typedef {{ type: "function_call", name: string, arguments: string, callId: string }
 *   | { type: "message", text: string }} Item
 */

/**
 * The scripted model's next output item, from the conversation so far.
 * @param {any} body
 * @param {number} count
 * @returns {Item}
 */
function nextItem(body, count) {
  const tools = Array.isArray(body?.tools) ? body.tools : [];
  // Side requests (a title for the thread) offer no tools.
  if (!tools.some((tool) => tool?.name === "exec_command")) {
    return { type: "message", text: "Steps and background ticks" };
  }
  const input = Array.isArray(body?.input) ? body.input : [];
  const userTexts = input
    .filter((item) => item?.type === "message" && item.role === "user")
    .flatMap((item) => (Array.isArray(item.content) ? item.content : []))
    .map((part) => String(part?.text ?? ""));
  const outputs = input.filter((item) => item?.type === "function_call_output");
  const script = scriptOf(userTexts);
  if (script !== undefined) {
    return codexScript(script, outputs.length, count);
  }
  const call = (/** @type {string} */ name, /** @type {Record<string, unknown>} */ args) => ({
    type: /** @type {const} */ ("function_call"),
    name,
    arguments: JSON.stringify(args),
    callId: `call_standin_${count}`,
  });
  if (userTexts.some((text) => text.includes(CANCEL_PROMPT))) {
    if (outputs.length === 0) {
      return call("exec_command", { cmd: LONG_COMMAND, yield_time_ms: 500 });
    }
    if (outputs.length === 1) {
      return call("exec_command", { cmd: LONG_COMMAND, yield_time_ms: 30000 });
    }
    return { type: "message", text: "Stopped the loop." };
  }
  if (outputs.length === 0) {
    return call("exec_command", { cmd: FOREGROUND_COMMAND, yield_time_ms: 10000 });
  }
  if (outputs.length === 1) {
    return call("exec_command", { cmd: BACKGROUND_COMMAND, yield_time_ms: 500 });
  }
  const session = /session ID (\d+)/i.exec(JSON.stringify(outputs[1]?.output ?? ""));
  if (outputs.length === 2 && session) {
    return call("write_stdin", { session_id: Number(session[1]), chars: "", yield_time_ms: 5000 });
  }
  return { type: "message", text: "Ran the steps and the ticks." };
}

const USAGE = {
  input_tokens: 100,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 20,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 120,
};

/**
 * The SSE events of one streamed response holding `item`.
 * @param {string} id
 * @param {Item} item
 * @returns {Array<[string, unknown]>}
 */
function responseEvents(id, item) {
  const response = { id, object: "response", created_at: 0, model: MODEL, status: "in_progress" };
  /** @type {Array<[string, unknown]>} */
  const events = [["response.created", { type: "response.created", response }]];
  let done;
  if (item.type === "function_call") {
    const itemId = `fc_${item.callId}`;
    const base = { type: "function_call", id: itemId, call_id: item.callId, name: item.name };
    events.push([
      "response.output_item.added",
      {
        type: "response.output_item.added",
        output_index: 0,
        item: { ...base, arguments: "", status: "in_progress" },
      },
    ]);
    events.push([
      "response.function_call_arguments.delta",
      {
        type: "response.function_call_arguments.delta",
        item_id: itemId,
        output_index: 0,
        delta: item.arguments,
      },
    ]);
    events.push([
      "response.function_call_arguments.done",
      {
        type: "response.function_call_arguments.done",
        item_id: itemId,
        output_index: 0,
        arguments: item.arguments,
      },
    ]);
    done = { ...base, arguments: item.arguments, status: "completed" };
  } else {
    const itemId = `msg_${id}`;
    const part = { type: "output_text", text: item.text, annotations: [] };
    events.push([
      "response.output_item.added",
      {
        type: "response.output_item.added",
        output_index: 0,
        item: {
          type: "message",
          id: itemId,
          role: "assistant",
          status: "in_progress",
          content: [],
        },
      },
    ]);
    events.push([
      "response.output_text.delta",
      {
        type: "response.output_text.delta",
        item_id: itemId,
        output_index: 0,
        content_index: 0,
        delta: item.text,
      },
    ]);
    done = { type: "message", id: itemId, role: "assistant", status: "completed", content: [part] };
  }
  events.push([
    "response.output_item.done",
    { type: "response.output_item.done", output_index: 0, item: done },
  ]);
  events.push([
    "response.completed",
    {
      type: "response.completed",
      response: { ...response, status: "completed", output: [done], usage: USAGE },
    },
  ]);
  return events;
}
