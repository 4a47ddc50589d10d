import { ProcessError, type RunSnapshot, type WatcherSpec } from "acp-process";
import { followProgress } from "../progress.js";
import { BACKGROUND_TIMEOUT_MS, type DemoSession } from "../session.js";

export interface BgOptions {
  /** Keep stdin open for `send` and `keys` (the client must offer the acp-terminal stdin extension). */
  stdin?: boolean;
  /** Run in a PTY (takes input too). */
  pty?: boolean;
  /** Variables added to the command's environment. */
  env?: Record<string, string>;
  /** Watchers installed at start, before any output is read: no line can slip past them. */
  watch?: WatcherSpec[];
}

/** The prompt as typed: `bg --stdin <cmd>`, `bg --pty <cmd>`, `bg <cmd>`. */
function titleOf(command: string, { stdin, pty, watch = [] }: BgOptions): string {
  const watching =
    watch.length === 0 ? "" : ` (watching ${watch.map((spec) => `/${spec.regex}/`).join(", ")})`;
  return `bg${stdin ? " --stdin" : ""}${pty ? " --pty" : ""}: ${command}${watching}`;
}

/**
 * `bg [--stdin] [--pty] <cmd>`: starts a background run and returns at once. Its tool call stays
 * in progress with the terminal embedded; the BackgroundReporter finishes it and says so when the
 * run ends.
 */
export async function bgCommand(
  session: DemoSession,
  command: string,
  options: BgOptions = {},
): Promise<RunSnapshot> {
  const { stdin = false, pty = false, watch = [], env } = options;
  return session.tool(
    titleOf(command, options),
    { command, background: true, stdin, pty, ...(watch.length > 0 ? { watch } : {}) },
    async (call) => {
      const provider = session.mode.provider;
      if (stdin && !provider.capabilities.write) {
        // acp-process would start it with stdin closed; say so instead of running it without input.
        throw ProcessError.unsupported(
          "stdin",
          provider.kind,
          "this client's terminals take no input (no acp-terminal stdin extension); run the command without --stdin",
        );
      }
      session.background.expect(call); // before the start: a fast command may end at once
      let run: RunSnapshot;
      try {
        run = await session.manager.start({
          sessionId: session.id,
          command,
          cwd: session.cwd,
          ...(env !== undefined ? { env } : {}),
          timeoutMs: BACKGROUND_TIMEOUT_MS,
          watch,
          stdin,
          pty,
          labels: { toolCallId: call.id, background: "true" },
          // Embedded from onStart, which the release of the terminal waits for: a command that ends
          // at once is still shown in the client's terminal (and a queued one when it starts).
          // Status updates with the output follow until the run's exit event.
          onStart: (started) => {
            followProgress(session, call, started.id);
            return call.running(
              session.terminalOf(started),
              `Started ${started.id} in the background. ${hints(started.id, stdin || pty)}`,
            );
          },
        });
      } catch (error) {
        session.background.forget(call); // no run, so no exit will come for it
        throw error;
      }
      await session.say(`Started ${run.id} in the background.\n`, {
        event: "started",
        id: run.id,
        status: run.status,
        input: stdin || pty,
      });
      return run;
    },
  );
}

function hints(id: string, input: boolean): string {
  return [
    `poll ${id}`,
    ...(input ? [`send ${id} <text>`, `keys ${id} <key>...`] : []),
    `log ${id}`,
    `kill ${id}`,
  ].join(" · ");
}
