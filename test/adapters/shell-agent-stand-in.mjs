// A stand-in for the Anthropic Messages API that serves the agents which run their shell through the
// client's `terminal/create` (claude-code-acp, omp, droid: terminal-agents.mjs). The main
// conversation is the one whose request offers a shell tool; its prompt is `run: COMMAND`, and the
// scripted model asks the shell tool to run COMMAND, then, once the tool's result came back, answers
// with a short text. Any other request (a title, a summary, a side question) gets a plain text.
// Other API paths (droid asks its own service for settings and telemetry) are answered `200 {}`.
import { answerMessages, textsOf } from "./anthropic-stand-in.mjs";
import { startStandIn } from "./http-stand-in.mjs";

/** The prompt's prefix that names the command the model runs. */
export const RUN_PREFIX = "run: ";
/** Tools that run a shell line, by the name each agent gives them, with the field of the line. */
const SHELL_TOOLS = [
  { name: /^mcp__acp__Bash$/, field: "command" },
  { name: /^bash$/i, field: "command" },
  { name: /^execute$/i, field: "command" },
  { name: /^(run_shell_command|shell)$/i, field: "command" },
];

/**
 * @param {{ keepBodies?: boolean }} [options]
 */
export function startShellAgentStandIn(options = {}) {
  let messageCount = 0;
  return startStandIn(async ({ method, path, body }, reply) => {
    // droid reaches a built-in Anthropic model through its service, at /api/llm/a/v1/messages.
    const messages = path.replace(/^\/api\/llm\/a(?=\/v1\/)/, "");
    if (method === "POST" && messages.startsWith("/v1/messages/count_tokens")) {
      reply.status(200, { input_tokens: 100 });
      return "count_tokens";
    }
    if (method !== "POST" || !messages.startsWith("/v1/messages")) {
      reply.status(200, {});
      return "200 {}";
    }
    messageCount += 1;
    const turn = mainTurn(body);
    const { stopReason } = await answerMessages(reply, body, messageCount, turn);
    const tools = Array.isArray(body?.tools) ? body.tools.map((tool) => tool?.name) : [];
    return `${turn ? "main" : "side"} ${stopReason} tools=${tools.join(",")}`;
  }, options);
}

/**
 * The scripted answer of the main conversation, or null for a side request.
 * @param {any} body
 * @returns {Array<Record<string, any>> | null}
 */
function mainTurn(body) {
  const tools = Array.isArray(body?.tools) ? body.tools : [];
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  const texts = messages.filter((m) => m?.role === "user").flatMap((m) => textsOf(m.content));
  const prompt = texts.find((text) => text.includes(RUN_PREFIX));
  const shell = tools
    .map((tool) => ({ tool, kind: SHELL_TOOLS.find((kind) => kind.name.test(String(tool?.name))) }))
    .find(({ kind }) => kind !== undefined);
  if (prompt === undefined || shell === undefined) {
    return null;
  }
  const results = messages.flatMap((m) =>
    Array.isArray(m?.content) ? m.content.filter((b) => b?.type === "tool_result") : [],
  ).length;
  if (results > 0) {
    return [{ type: "text", text: "Done." }];
  }
  const command = prompt.slice(prompt.indexOf(RUN_PREFIX) + RUN_PREFIX.length).split("\n")[0];
  return [
    {
      type: "tool_use",
      id: "toolu_standin_shell",
      name: shell.tool.name,
      input: { ...requiredDefaults(shell.tool), [shell.kind.field]: command },
    },
  ];
}

/**
 * Values for the tool's other required fields (claude-code-acp's Bash requires a `timeout`).
 * @param {any} tool
 */
function requiredDefaults(tool) {
  const schema = tool?.input_schema ?? {};
  const required = Array.isArray(schema.required) ? schema.required : [];
  /** @type {Record<string, unknown>} */
  const values = {};
  for (const field of required) {
    const type = schema.properties?.[field]?.type;
    if (field === "timeout" || type === "number" || type === "integer") {
      values[field] = 120_000;
    } else if (type === "boolean") {
      values[field] = false;
    } else if (type === "string") {
      values[field] = "Run the command";
    }
  }
  return values;
}
