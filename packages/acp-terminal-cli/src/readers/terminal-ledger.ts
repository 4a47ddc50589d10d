import type { TerminalHost } from "acp-terminal";
import type { Renderer, TerminalRecord } from "../view/renderer.js";
import { OutputWatcher } from "./output-watcher.js";

/**
 * Forwards host events to the renderer and remembers every terminal for the summary. Output bytes
 * are never forwarded: the renderer hears once a frame that a terminal's buffer changed (or after
 * every chunk, for one that shows every byte), and reads what it shows from that buffer.
 */
export function followHost(host: TerminalHost, renderer: Renderer): () => TerminalRecord[] {
  const records = new Map<string, TerminalRecord>();
  const watcher = new OutputWatcher((terminalId) => renderer.terminalOutput(terminalId));
  host.on("create", ({ terminalId, info }) => {
    records.set(terminalId, { terminalId, command: [info.command, ...info.args].join(" ") });
    const output = host.outputReader(terminalId);
    if (output === undefined) {
      return;
    }
    renderer.terminalCreated(info, output, host.screenReader(terminalId));
    if (renderer.everyChunk !== true) {
      watcher.follow(terminalId, output);
    }
  });
  if (renderer.everyChunk === true) {
    host.on("written", ({ terminalId }) => renderer.terminalOutput(terminalId));
  }
  host.on("exit", ({ terminalId, exitStatus }) => {
    const record = records.get(terminalId);
    if (record !== undefined) {
      record.exitStatus = exitStatus;
    }
    watcher.check(terminalId);
    watcher.forget(terminalId);
    renderer.terminalExited(terminalId, exitStatus);
  });
  host.on("release", ({ terminalId }) => {
    watcher.check(terminalId);
    watcher.forget(terminalId);
    renderer.terminalReleased(terminalId);
  });
  return () => [...records.values()];
}
