// A stand-in for the Gemini API that Gemini CLI talks to (GOOGLE_GEMINI_BASE_URL): the main
// conversation (a request that offers Gemini CLI's file tools) follows a script from
// scripted-turns.mjs chosen by the prompt (`[script:NAME]`), one step per function response the
// conversation holds; other requests (a check of who speaks next, a summary) get a short text.
// Streamed answers are server-sent events of GenerateContentResponse objects.
import { startStandIn } from "./http-stand-in.mjs";
import { geminiScript, scriptOf } from "./scripted-turns.mjs";

/** @param {{ keepBodies?: boolean }} [options] */
export function startGeminiStandIn(options = {}) {
  return startStandIn(async ({ method, path, body }, reply) => {
    if (method !== "POST" || !path.includes("/models/")) {
      reply.status(404, {
        error: { code: 404, message: `no ${method} ${path} here`, status: "NOT_FOUND" },
      });
      return "404";
    }
    if (path.includes(":countTokens")) {
      reply.status(200, { totalTokens: 100 });
      return "countTokens";
    }
    const parts = nextParts(body);
    const response = {
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 },
      modelVersion: "gemini-2.5-pro",
    };
    if (path.includes(":streamGenerateContent")) {
      await reply.events([[null, response]], 5);
    } else {
      reply.status(200, response);
    }
    return parts
      .map((part) =>
        part.functionCall
          ? `${part.functionCall.name}(${JSON.stringify(part.functionCall.args)})`
          : `"${part.text}"`,
      )
      .join(" + ");
  }, options);
}

/**
 * The scripted model's next parts, from the conversation so far (`contents`).
 * @param {any} body
 * @returns {Array<Record<string, any>>}
 */
function nextParts(body) {
  const contents = Array.isArray(body?.contents) ? body.contents : [];
  const tools = JSON.stringify(body?.tools ?? []);
  const texts = contents
    .filter((c) => c?.role === "user")
    .flatMap((c) => (Array.isArray(c.parts) ? c.parts : []))
    .map((p) => (typeof p?.text === "string" ? p.text : ""));
  const script = scriptOf(texts);
  // Side requests offer no file tools; some want JSON of a schema (a routing score, who speaks next).
  const schema =
    body?.generationConfig?.responseJsonSchema ?? body?.generationConfig?.responseSchema;
  if (schema !== undefined) {
    return [{ text: JSON.stringify(sample(schema)) }];
  }
  if (script === undefined || !tools.includes("write_file")) {
    return [{ text: "Stand-in answer" }];
  }
  const responses = contents
    .flatMap((c) => (Array.isArray(c.parts) ? c.parts : []))
    .filter((p) => p?.functionResponse !== undefined).length;
  const cwd = /Workspace Directories:[^/]*(\/[^\s"'`\\]+)/.exec(JSON.stringify(body))?.[1] ?? ".";
  return geminiScript(script, responses, cwd);
}

/**
 * A value of a JSON schema (Gemini's OBJECT / STRING / INTEGER …): every property filled, the
 * user speaks next, the lowest score.
 * @param {any} schema
 * @returns {unknown}
 */
function sample(schema) {
  const type = String(schema?.type ?? "").toUpperCase();
  if (Array.isArray(schema?.enum) && schema.enum.length > 0) {
    return schema.enum.includes("user") ? "user" : schema.enum[0];
  }
  switch (type) {
    case "OBJECT":
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, value]) => [
          key,
          key === "next_speaker" ? "user" : sample(value),
        ]),
      );
    case "ARRAY":
      return [];
    case "INTEGER":
    case "NUMBER":
      return 1;
    case "BOOLEAN":
      return false;
    default:
      return "stand-in";
  }
}
