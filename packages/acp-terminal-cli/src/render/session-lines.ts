import type { InitializeShown, TurnShown } from "../view/renderer.js";
import { formatElapsed } from "./format.js";

/** Characters of a name the agent gives itself shown at most. */
const MAX_NAME_CHARS = 100;

/** What the agent says of itself, shown on one line: control characters out, bounded. */
function plain(value: unknown): string | undefined {
  if (typeof value !== "string" || value.trim() === "") {
    return undefined;
  }
  const text = value.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?").trim();
  return text.length > MAX_NAME_CHARS ? `${text.slice(0, MAX_NAME_CHARS - 1)}…` : text;
}

/**
 * The line that says which agent runs, at start: its name and version as it gives them, the
 * dialect spoken, and where its stderr goes
 * (`acp-terminal: @agentclientprotocol/claude-agent-acp 0.101.0 · ACP v2 · its stderr: ~/…/claude.log`).
 */
export function introLine(intro: InitializeShown, agentLog: string | undefined): string {
  const info: object = Object(intro.agentInfo);
  const name = plain(Reflect.get(info, "name")) ?? plain(Reflect.get(info, "title")) ?? "the agent";
  const version = plain(Reflect.get(info, "version"));
  const dialect = intro.dialect === "v2" ? "ACP v2" : `ACP v1 (${intro.dialect})`;
  const stderr = agentLog === undefined ? "" : ` · its stderr: ${agentLog}`;
  return `acp-terminal: ${name}${version === undefined ? "" : ` ${version}`} · ${dialect}${stderr}`;
}

/** The session's id, at start, to resume it with `--session ID`. */
export function sessionLine(session: { sessionId: string; how: string }): string {
  return `acp-terminal: session ${plain(session.sessionId) ?? "?"} (${session.how})`;
}

/** The line under each turn of a session of many: how it ended and how long it took. */
export function turnSeparator(turn: TurnShown, elapsedMs: number): string {
  const how = turn.error === undefined ? (turn.stopReason ?? "no stop reason") : "error";
  const running =
    turn.running > 0 ? ` · ${turn.running} terminal${turn.running === 1 ? "" : "s"} running` : "";
  return `── ${how} · ${formatElapsed(elapsedMs)}${running}`;
}
