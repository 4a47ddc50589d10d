// acp-process/v2: the ACP v2 draft's agent-owned terminals. Runs published as terminals
// (`TerminalPublisher`: terminal_update, terminal_output_chunk, exitStatus, replay snapshots,
// terminal/cancel) and the choice of where commands run from the negotiated protocol version.
export {
  chooseSurface,
  type SurfaceChoice,
  type SurfaceInputs,
  type TerminalSurface,
} from "./providers/surface.js";
export {
  TerminalPublisher,
  DEFAULT_PTY_SIZE,
  type TerminalPublisherOptions,
} from "./publish/publisher.js";
export type {
  TerminalOutputChunk,
  TerminalSessionUpdate,
  TerminalUpdate,
  TerminalUpdateSender,
} from "./publish/wire.js";
