import type { RunSnapshot } from "acp-process";
import { describeRun, runFacts } from "../format.js";
import type { DemoSession } from "../session.js";

/**
 * `kill <id>`: kills a run and everything it started. The kill goes through the provider: our
 * host signals the command's process group, so children die with it. `kill --signal SIGINT <id>`
 * sends that signal instead (the client's signal extension), and acp-process forces the kill if
 * the command has not ended 2 s later.
 */
export async function killCommand(
  session: DemoSession,
  id: string,
  signal?: string,
): Promise<RunSnapshot> {
  const chosen = signal === undefined ? {} : { signal };
  return session.tool(
    `kill ${signal === undefined ? "" : `--signal ${signal} `}${id}`,
    { id, ...chosen },
    async (call) => {
      const before = session.manager.get(id, { sessionId: session.id });
      const run = await session.manager.kill(id, { sessionId: session.id, ...chosen });
      const text =
        before.status === "running" || before.status === "queued"
          ? `Killed ${id}: ${describeRun(run)}`
          : `${id} had already ended: ${describeRun(run)}`;
      await call.finish("completed", text, runFacts(run));
      return run;
    },
  );
}
