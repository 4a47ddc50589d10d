import type { TerminalHost } from "acp-terminal";
import type { Renderer, TerminalRecord } from "../view/renderer.js";

/**
 * Forwards host events to the renderer and remembers every terminal for the summary. Every chunk
 * of output goes to the renderer as a view of the host's read buffer (no copy), which keeps its
 * own bounded view of it; the exit comes after the last chunk.
 */
export function followHost(host: TerminalHost, renderer: Renderer): () => TerminalRecord[] {
  const records = new Map<string, TerminalRecord>();
  host.on("create", ({ terminalId, info }) => {
    records.set(terminalId, { terminalId, command: [info.command, ...info.args].join(" ") });
    const output = host.outputReader(terminalId);
    if (output === undefined) {
      return;
    }
    renderer.terminalCreated(info, output, host.screenReader(terminalId));
  });
  host.on("written", ({ terminalId, data }) => renderer.terminalBytes(terminalId, data));
  host.on("exit", ({ terminalId, exitStatus }) => {
    const record = records.get(terminalId);
    if (record !== undefined) {
      record.exitStatus = exitStatus;
    }
    renderer.terminalExited(terminalId, exitStatus);
  });
  host.on("release", ({ terminalId }) => renderer.terminalReleased(terminalId));
  return () => [...records.values()];
}
