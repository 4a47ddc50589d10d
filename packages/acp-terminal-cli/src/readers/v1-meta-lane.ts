import type { LineTap } from "../agent/ndjson-stdio.js";
import { keyPath, stringSpan, withoutSpan } from "./line-scan.js";
import { jsonStringBytes } from "./wire-bytes.js";

function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null ? Reflect.get(value, name) : undefined;
}

const isRecord = (value: unknown): value is object =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const MARKER = Buffer.from('"terminal_output');
const UPDATE_KEYS = new Set(["sessionUpdate", "toolCallId", "_meta"]);
const OUTPUT_KEYS = ["terminal_output_delta", "terminal_output"] as const;
const PATHS = OUTPUT_KEYS.map((key) => keyPath("params", "update", "_meta", key, "data"));
/** Bytes of the buffer a chunk's text is decoded into (a 64 KiB chunk; a larger one gets its own). */
const SCRATCH_BYTES = 96 * 1024;

/** One `_meta` output report, its text decoded to bytes (valid until the next line). */
export interface MetaOutput {
  sessionId: string;
  toolCallId: string;
  key: (typeof OUTPUT_KEYS)[number];
  terminalId: string;
  bytes: Uint8Array;
}

/**
 * The fast lane of the v1 `_meta` dialect, for an agent process's stdout (see `LineTap`): a
 * `tool_call_update` notification that carries nothing but one `terminal_output_delta` (or
 * `terminal_output`) report, in the session's id, is read from its line's bytes (its text is
 * unescaped straight into bytes, never a string: see line-scan.ts) and applied at once, without
 * the SDK's dispatch (its v1 schema parse of a session update costs ~0.4 ms a message: a flood of
 * codex-acp's output is thousands of them). `isSession` says which sessions' reports are taken. Order is kept as in the v2 lane: only while every
 * `session/update` handed to the SDK before it has been delivered (`delivered`). Anything else,
 * or anything not exactly that shape, goes the SDK's way.
 */
export class MetaLane {
  #pending = 0;
  readonly #scratch = new Uint8Array(SCRATCH_BYTES);

  constructor(
    private readonly isSession: (sessionId: string) => boolean,
    private readonly apply: (output: MetaOutput) => void,
  ) {}

  /** The SDK delivered one session update to the driver. */
  delivered(): void {
    this.#pending = Math.max(0, this.#pending - 1);
  }

  readonly lineTap: LineTap = {
    take: (line) => {
      if (this.#pending > 0 || line.indexOf(MARKER) === -1) {
        return false;
      }
      const output = this.#read(line);
      if (output === undefined) {
        return false;
      }
      this.apply(output);
      return true;
    },
    passed: (message) => {
      if (field(message, "method") === "session/update" && field(message, "id") === undefined) {
        this.#pending++;
      }
    },
  };

  #read(line: Buffer): MetaOutput | undefined {
    for (const [index, key] of OUTPUT_KEYS.entries()) {
      const span = stringSpan(line, PATHS[index]!, true);
      if (span === undefined) {
        continue;
      }
      const envelope = withoutSpan(line, span);
      const found = envelope === undefined ? undefined : shapeOf(envelope, this.isSession, key);
      const bytes =
        found === undefined
          ? undefined
          : jsonStringBytes(line, span.start, span.end, this.#scratch);
      return found === undefined || bytes === undefined ? undefined : { ...found, key, bytes };
    }
    return undefined;
  }
}

/** The session, tool call and terminal of a notification that is exactly one emptied `_meta` report. */
function shapeOf(
  message: object,
  isSession: (sessionId: string) => boolean,
  key: string,
): { sessionId: string; toolCallId: string; terminalId: string } | undefined {
  const params = field(message, "params");
  const sessionId = field(params, "sessionId");
  const update = field(params, "update");
  const toolCallId = field(update, "toolCallId");
  const meta = field(update, "_meta");
  const report = field(meta, key);
  const terminalId = field(report, "terminal_id");
  const ok =
    field(message, "jsonrpc") === "2.0" &&
    field(message, "method") === "session/update" &&
    !("id" in message) &&
    typeof sessionId === "string" &&
    isSession(sessionId) &&
    isRecord(update) &&
    field(update, "sessionUpdate") === "tool_call_update" &&
    typeof toolCallId === "string" &&
    Object.keys(update).every((k) => UPDATE_KEYS.has(k)) &&
    isRecord(meta) &&
    Object.keys(meta).length === 1 &&
    typeof terminalId === "string" &&
    field(report, "data") === "";
  return ok &&
    typeof sessionId === "string" &&
    typeof toolCallId === "string" &&
    typeof terminalId === "string"
    ? { sessionId, toolCallId, terminalId }
    : undefined;
}
