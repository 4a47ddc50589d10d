import { DEFAULT_PTY_SIZE } from "acp-terminal";
import type { RunSnapshot } from "../model/run-events.js";
import { displayCommand, exitStatusOf, inputMeta, sizeOf } from "./terminal-fields.js";
import { utf8Pieces } from "./utf8-cut.js";
import type { TerminalOutputChunk, TerminalUpdate } from "./wire.js";

/** The announcement of a run as a terminal: command, cwd, size for a PTY, `capabilities.cancel`. */
export function announcement(run: RunSnapshot): TerminalUpdate {
  return {
    sessionUpdate: "terminal_update",
    terminalId: run.id,
    command: displayCommand(run),
    ...(run.cwd !== null ? { cwd: run.cwd } : {}),
    ...(run.pty ? { size: sizeOf(run, DEFAULT_PTY_SIZE) } : {}),
    capabilities: { cancel: {} },
  };
}

/** A PTY run's new size, after a resize. */
export function sizeUpdate(run: RunSnapshot): TerminalUpdate {
  return {
    sessionUpdate: "terminal_update",
    terminalId: run.id,
    size: sizeOf(run, DEFAULT_PTY_SIZE),
  };
}

/** Whether the run waits for input, as an update of the terminal's `_meta`. */
export function inputUpdate(run: RunSnapshot): TerminalUpdate {
  return {
    sessionUpdate: "terminal_update",
    terminalId: run.id,
    _meta: inputMeta(run),
  };
}

/** The exit, sent exactly once; cancel is no longer offered. */
export function exitUpdate(run: RunSnapshot): TerminalUpdate {
  return {
    sessionUpdate: "terminal_update",
    terminalId: run.id,
    exitStatus: exitStatusOf(run),
    capabilities: {},
  };
}

/** An authoritative `output` snapshot that replaces what the client has. */
export function snapshotUpdate(terminalId: string, snapshot: Buffer): TerminalUpdate {
  return {
    sessionUpdate: "terminal_update",
    terminalId,
    output: { data: snapshot.toString("base64") },
  };
}

/**
 * The whole state of a terminal, for replay: `run` as published (its last size), `exited` once it
 * has, `current` as the manager has it now (for whether it waits for input).
 */
export function fullState(
  run: RunSnapshot,
  exited: RunSnapshot | null,
  current: RunSnapshot,
  snapshot: Buffer,
): TerminalUpdate {
  return {
    sessionUpdate: "terminal_update",
    terminalId: run.id,
    command: displayCommand(run),
    cwd: run.cwd,
    size: run.pty ? sizeOf(run, DEFAULT_PTY_SIZE) : null,
    output: { data: snapshot.toString("base64") },
    exitStatus: exited === null ? null : exitStatusOf(exited),
    capabilities: exited === null ? { cancel: {} } : {},
    ...(exited === null ? { _meta: inputMeta(current) } : {}),
  };
}

/** Output as `terminal_output_chunk`s of at most `maxBytes` each, cut between characters. */
export function outputChunks(
  terminalId: string,
  bytes: Buffer,
  maxBytes: number,
): TerminalOutputChunk[] {
  return utf8Pieces(bytes, maxBytes).map((piece) => ({
    sessionUpdate: "terminal_output_chunk",
    terminalId,
    data: Buffer.from(piece).toString("base64"),
  }));
}
