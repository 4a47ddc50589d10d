import type { TerminalHost } from "../index.js";
import type { TerminalRecord } from "./format.js";
import type { Renderer } from "./renderer.js";

/** Forwards host events to the renderer and remembers every terminal for the summary. */
export function followHost(host: TerminalHost, renderer: Renderer): () => TerminalRecord[] {
  const records = new Map<string, TerminalRecord>();
  host.on("create", ({ terminalId, info }) => {
    records.set(terminalId, { terminalId, command: [info.command, ...info.args].join(" ") });
    const output = host.outputReader(terminalId);
    if (output !== undefined) renderer.terminalCreated(info, output);
  });
  // No bytes with it: a renderer reads the host's buffer when it draws, not every chunk.
  host.on("written", ({ terminalId }) => renderer.terminalOutput(terminalId));
  host.on("exit", ({ terminalId, exitStatus }) => {
    const record = records.get(terminalId);
    if (record !== undefined) record.exitStatus = exitStatus;
    renderer.terminalExited(terminalId, exitStatus);
  });
  host.on("release", ({ terminalId }) => renderer.terminalReleased(terminalId));
  return () => [...records.values()];
}
