import type { TerminalHost } from "../index.js";
import type { TerminalRecord } from "./format.js";
import type { Renderer } from "./renderer.js";

/** Forwards host events to the renderer and remembers every terminal for the summary. */
export function followHost(host: TerminalHost, renderer: Renderer): () => TerminalRecord[] {
  const records = new Map<string, TerminalRecord>();
  host.on("create", ({ terminalId, info }) => {
    records.set(terminalId, { terminalId, command: [info.command, ...info.args].join(" ") });
    renderer.terminalCreated(info);
  });
  host.on("output", ({ terminalId, data }) => renderer.terminalOutput(terminalId, data));
  host.on("exit", ({ terminalId, exitStatus }) => {
    const record = records.get(terminalId);
    if (record !== undefined) record.exitStatus = exitStatus;
    renderer.terminalExited(terminalId, exitStatus);
  });
  host.on("release", ({ terminalId }) => renderer.terminalReleased(terminalId));
  return () => [...records.values()];
}
