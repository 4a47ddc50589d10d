import { reportError } from "../../report-error.js";
import type { Step } from "./step.js";

const FLOOD_LIMIT = 4096;
const UNIT = "é✓🚀"; // 2 + 3 + 4 bytes
const REPEATS = 22_756; // × 9 bytes ≈ 200 KB
const FLOOD_COMMAND = `yes '${UNIT}' | head -n ${REPEATS} | tr -d '\\n'`;
/** It ends in well under a second; past this (or on `session/cancel`) its terminal is killed. */
const FLOOD_DEADLINE_MS = 30_000;

/**
 * The client keeps the newest `outputByteLimit` bytes and cuts on a character boundary. This step
 * uses the provider's five primitives directly (what ProcessManager does underneath), because
 * `truncated` is a fact of the terminal's own snapshot.
 */
export const flood: Step = {
  title: `Truncate a flood of output to outputByteLimit ${FLOOD_LIMIT} with multi-byte characters intact`,
  async run(session, say) {
    const provider = session.mode.provider;
    const facts = await session.tool(
      `flood: ${REPEATS} × "${UNIT}" through outputByteLimit ${FLOOD_LIMIT}`,
      { command: FLOOD_COMMAND },
      async (call) => {
        const terminalId = await provider.create({
          command: FLOOD_COMMAND,
          cwd: session.cwd,
          outputByteLimit: FLOOD_LIMIT,
        });
        try {
          await call.running(session.mode.clientTerminals ? terminalId : null);
          // Not a ProcessManager run, so neither acp-process's timeout nor the tour's cancel reaches it: bound it here.
          const stop = AbortSignal.any([
            session.turn.signal,
            AbortSignal.timeout(FLOOD_DEADLINE_MS),
          ]);
          const kill = (): void =>
            void provider
              .kill(terminalId)
              .catch((error: unknown) =>
                reportError(`killing the flood's terminal ${terminalId}`, error),
              );
          if (stop.aborted) {
            kill();
          } else {
            stop.addEventListener("abort", kill, { once: true });
          }
          const exit = await provider
            .waitForExit(terminalId)
            .finally(() => stop.removeEventListener("abort", kill));
          const snapshot = await provider.output(terminalId);
          const bytes = Buffer.byteLength(snapshot.output, "utf8");
          const firstChar = String.fromCodePoint(snapshot.output.codePointAt(0) ?? 0);
          const result = {
            step: "flood",
            exitCode: exit.exitCode,
            printedBytes: Buffer.byteLength(UNIT) * REPEATS,
            totalBytes: snapshot.totalBytes ?? null,
            limit: FLOOD_LIMIT,
            truncated: snapshot.truncated,
            bytes,
            firstChar,
            wholeCharacters: UNIT.includes(firstChar) && !snapshot.output.includes("\uFFFD"),
          };
          const text = `truncated ${result.truncated}; kept ${bytes} of ${result.printedBytes} bytes (limit ${FLOOD_LIMIT}); starts with ${JSON.stringify(firstChar)}`;
          await call.finish(result.truncated ? "completed" : "failed", text, result);
          return result;
        } finally {
          await provider.release(terminalId);
        }
      },
    );
    await say(
      `→ printed ${facts.printedBytes} bytes; the terminal kept ${facts.bytes} ≤ ${FLOOD_LIMIT}, truncated ${facts.truncated}, ` +
        `starting on a whole character (${JSON.stringify(facts.firstChar)}), no replacement characters: ${facts.wholeCharacters}.`,
      facts,
    );
  },
};
