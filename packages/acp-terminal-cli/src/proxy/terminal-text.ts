import type { ExitStatus } from "acp-terminal";

/** Characters of one screen line sent: a longer line is cut, saying so. */
const MAX_LINE_CHARS = 2000;
/**
 * Characters of a screen sent once its command has ended: its newest (a screen drawn while the
 * command ran holds the emulator's whole scrollback; one frozen holds 64 KiB).
 */
export const MAX_FINAL_CHARS = 64 * 1024;

/** How a command ended, in the words the CLI shows: `exit 0`, `killed by SIGTERM`. */
export function exitText(status: ExitStatus): string {
  if (status.signal !== null && status.signal !== undefined) {
    return `killed by ${status.signal}`;
  }
  return status.exitCode === null || status.exitCode === undefined
    ? "ended (exit status unknown)"
    : `exit ${status.exitCode}`;
}

/** A fence longer than any run of backticks in `text` (CommonMark), so nothing in it ends the block. */
function fenceFor(text: string): string {
  let longest = 0;
  for (const run of text.match(/`{3,}/g) ?? []) {
    longest = Math.max(longest, run.length);
  }
  return "`".repeat(Math.max(3, longest + 1));
}

/**
 * A terminal as tool-call text an editor shows: its screen (as the emulator rendered it) in a
 * fenced text block, then how it ended. While it runs (`status` undefined) only the newest
 * `liveLines` lines are shown, after a line saying how many came before; once it has ended, the
 * whole screen kept, up to its newest MAX_FINAL_CHARS characters (from a line's start). A terminal
 * that has shown nothing yet says it is running.
 */
export function terminalText(
  screen: string,
  status: ExitStatus | undefined,
  liveLines: number,
): string {
  let text = screen;
  let cutLines = 0;
  if (status !== undefined && text.length > MAX_FINAL_CHARS) {
    const from = text.indexOf("\n", text.length - MAX_FINAL_CHARS) + 1;
    for (let at = text.indexOf("\n"); at !== -1 && at < from; at = text.indexOf("\n", at + 1)) {
      cutLines++;
    }
    text = text.slice(from);
  }
  let lines = text.split("\n");
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") {
    lines.pop();
  }
  let earlier = cutLines;
  if (status === undefined && lines.length > liveLines) {
    earlier = lines.length - liveLines;
    lines = lines.slice(earlier);
  }
  const parts: string[] = [];
  if (earlier > 0) {
    parts.push(`… ${earlier} earlier line${earlier === 1 ? "" : "s"}`);
  }
  if (lines.length > 0) {
    const shown = lines
      .map((line) =>
        line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… (line cut)` : line,
      )
      .join("\n");
    const fence = fenceFor(shown);
    parts.push(`${fence}text\n${shown}\n${fence}`);
  }
  parts.push(status === undefined ? (lines.length > 0 ? "" : "running") : exitText(status));
  return parts.filter((part) => part !== "").join("\n");
}
