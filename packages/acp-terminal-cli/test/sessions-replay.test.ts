/**
 * `acp-terminal sessions` against the public adapters, replayed: claude-agent-acp 0.101.0 and
 * codex-acp 2.6.0, recorded by test/adapters/record-cli.mjs (a session made with acp-terminal run,
 * then `acp-terminal sessions list` in the same HOME), listed through `session/list`.
 */
import { describe, expect, it } from "vitest";
import { listSessions } from "../src/sessions/list-sessions.js";
import { recording, replay } from "./adapter-replay.js";

describe("sessions list against the recorded adapters", () => {
  for (const adapter of ["claude", "codex"]) {
    it(`${adapter}: the session made before is listed with its title, and only session/list is asked after initialize`, async () => {
      const entries = recording(`${adapter}-sessions-list`);
      const played = replay(entries);
      const listed = await listSessions(played.stream, {
        agent: adapter,
        version: "0.0.0-test",
        cwd: "/tmp/acp-recording/project",
      });
      expect("sessions" in listed, JSON.stringify(listed)).toBe(true);
      if (!("sessions" in listed)) {
        return;
      }
      expect(listed.sessions).toHaveLength(1);
      expect(listed.sessions[0]).toMatchObject({
        cwd: "/tmp/acp-recording/project",
        title: "[script:hello] say hello",
      });
      expect(listed.cut).toBe(false);
      expect(played.unexpected).toEqual([]);
      const methods = played.received.flatMap((m) => ("method" in m ? [m.method] : []));
      expect(methods).toEqual(["initialize", "session/list"]);
    });
  }
});
