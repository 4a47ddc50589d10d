/**
 * `acp-terminal run` hosts terminals only in the session it created with session/new: an agent
 * that names another session is refused with -32602 naming it, even with --yes.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FIXTURE_AGENT, killAllStarted, nodeAgent, runCli } from "./fixtures/cli-process.js";

afterEach(() => {
  expect(killAllStarted()).toEqual([]);
});

describe("acp-terminal run: sessions", () => {
  it("refuses terminal/create in a session it did not create, naming the sessionId", async () => {
    const { code, stdout } = await runCli([
      "run",
      "--yes",
      "--json",
      "--agent",
      nodeAgent(FIXTURE_AGENT, "invent", "made-up-session"),
      "go",
    ]);
    const lines = stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((l) => l.type === "terminal")).toEqual([]);
    const said = lines
      .flatMap((l) =>
        l.type === "session_update"
          ? [(l.update as { content: { text: string } }).content.text]
          : [],
      )
      .join("");
    expect(said).toBe(
      'invented: refused: -32602 Invalid params for terminal/create: sessionId: "made-up-session" is not a session of this connection; terminals live only in sessions the client created or loaded (session/new, session/load, session/resume, session/fork)\n',
    );
    expect(code).toBe(0);
  });
});
