// acp-terminal/internal: what this repository's own programs (acp-terminal-cli,
// acp-terminal-conformance) and sibling packages (acp-process, acp-terminal-mcp, demo-agent)
// borrow from the library. Not a stable API: names here change with the packages that use them.

export { messageOf, errnoCodeOf } from "./core/thrown.js";
export { packageVersion } from "./core/version.js";
export {
  ManualClock,
  MAX_TIMER_STEP_MS,
  repeatOnClock,
  sleepOn,
  systemClock,
  type Clock,
} from "./core/clock.js";
export { terminateProcessGroup } from "./terminate/kill.js";
export { boundedRequestError, cutText } from "./rpc/bounded-error.js";
export { paramsParser } from "./rpc/errors.js";
export { printable } from "./approval/visible-text.js";
export { OutputBuffer } from "./output/output-buffer.js";
export { readPipe } from "./spawn/pipe-reader.js";
export { PtyScreen } from "./output/pty-screen.js";
export { findOnPath, isExecutableFile } from "./spawn/command.js";
export { bubblewrapSupport } from "./sandbox/bubblewrap-support.js";
export { placeBeforeConnecting } from "./executors/target.js";
export { writeProtection, type WriteProtection } from "./sandbox/protected-paths.js";
