/**
 * Sessions a person can see, name and come back to, against a real agent process (the session
 * agent fixture, which keeps its sessions in a file and offers `session/list`): the id and the
 * agent said at start, the agent's stderr in a log, `--name`, `acp-terminal sessions list|show`,
 * and one run at a time per session.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { killAllStarted, nodeAgent, startCli } from "./fixtures/cli-process.js";

const AGENT = fileURLToPath(new URL("./fixtures/session-agent.mjs", import.meta.url));
let dir = "";
let env: NodeJS.ProcessEnv = {};

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "cli-session-names-"));
  env = {
    ...process.env,
    XDG_STATE_HOME: path.join(dir, "state"),
    SESSION_AGENT_STORE: path.join(dir, "agent-sessions.jsonl"),
  };
});

afterEach(async () => {
  expect(killAllStarted()).toEqual([]);
  await rm(dir, { recursive: true, force: true });
});

const agent = () => nodeAgent(AGENT);

function cli(args: string[], input = "", agentStderrDefault = false) {
  return startCli(args, { cwd: dir, env, input, agentStderrDefault });
}

describe("the session, said and kept", () => {
  it("text mode says which agent runs, where its stderr goes, and the session's id, on stderr; the agent's stderr goes to its log unless --agent-stderr", async () => {
    const logged = await cli(["run", "--agent", agent(), "say hi"], "", true).result();
    expect(logged.code, logged.stderr).toBe(0);
    const log = path.join(dir, "state", "acp-terminal", "logs", "session-agent.log");
    expect(logged.stderr).toContain(
      `acp-terminal: session-agent 1.0.0 · ACP v1 (v1-meta) · its stderr: ${log}\n`,
    );
    expect(logged.stderr).toMatch(/^acp-terminal: session s-\d+ \(new\)$/m);
    expect(logged.stderr).not.toContain("session-agent: ");
    expect(readFileSync(log, "utf8")).toContain("session-agent: session/prompt");
    expect(logged.stdout).not.toContain("acp-terminal:");

    const shown = await cli(
      ["run", "--agent-stderr", "--agent", agent(), "say hi"],
      "",
      true,
    ).result();
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr).toContain("session-agent: session/prompt");
    expect(shown.stderr).toContain("acp-terminal: session-agent 1.0.0 · ACP v1 (v1-meta)\n");
  });

  it("--name starts a session and names it; the same --name resumes it; sessions list and show give the names and how to resume", async () => {
    const first = await cli(["run", "--name", "fix-tests", "--agent", agent(), "say one"]).result();
    expect(first.code, first.stderr).toBe(0);
    const id = /acp-terminal: session (s-\d+) \(new\)/.exec(first.stderr)?.[1];
    expect(id).toBeDefined();
    const other = await cli(["run", "--agent", agent(), "say other"]).result();
    expect(other.code, other.stderr).toBe(0);

    const again = await cli(["run", "--name", "fix-tests", "--agent", agent(), "say two"]).result();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`session-agent: session/resume {"sessionId":"${id}"`);
    expect(again.stderr).toContain(`acp-terminal: session ${id} (resume)`);

    const list = await cli(["sessions", "--agent", agent()]).result();
    expect(list.code, list.stderr).toBe(0);
    expect(list.stderr).toContain(`acp-terminal: session-agent 1.0.0 · 2 sessions in ${dir}\n`);
    const lines = list.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines.find((line) => line.startsWith(id!))).toMatch(
      new RegExp(`^${id}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\dZ  \\[fix-tests\\]  session of \\d+$`),
    );

    const show = await cli(["sessions", "show", "fix-tests", "--agent", agent()]).result();
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`session  ${id}\nname     fix-tests\n`);
    expect(show.stdout).toContain(`cwd      ${dir}\n`);
    expect(show.stdout).toMatch(
      /^resume {3}acp-terminal run --agent '.*' --cwd .* --name fix-tests$/m,
    );

    const json = await cli(["sessions", "list", "--json", "--agent", agent()]).result();
    const parsed = json.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { sessionId: string; name?: string; cwd: string });
    expect(parsed.find((s) => s.sessionId === id)).toMatchObject({ name: "fix-tests", cwd: dir });

    const missing = await cli(["sessions", "show", "nope", "--agent", agent()]).result();
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No session "nope" among the agent\'s 2 sessions');
  });

  it("sessions reads every page the agent offers, and says when the agent does not list sessions", async () => {
    for (const word of ["a", "b", "c"]) {
      expect((await cli(["run", "--agent", agent(), `say ${word}`]).result()).code).toBe(0);
    }
    const list = await cli(["sessions", "list", "--agent-stderr", "--agent", agent()]).result();
    expect(list.stdout.trimEnd().split("\n")).toHaveLength(3);
    expect(list.stderr.match(/session-agent: session\/list/g)).toHaveLength(2);

    const { SESSION_AGENT_STORE: _store, ...noStore } = env;
    env = noStore;
    const none = await cli(["sessions", "--agent", agent()]).result();
    expect(none.code).toBe(4);
    expect(none.stderr).toContain(
      "The agent does not list its sessions (no sessionCapabilities.list",
    );
  });
});

describe("one run per session", () => {
  it("a second run on a session in use is refused with a line naming the holder; once the first ends, or dies without letting go, the session can be used again", async () => {
    const first = await cli(["run", "--name", "busy", "--agent", agent(), "say one"]).result();
    const id = /acp-terminal: session (s-\d+) \(new\)/.exec(first.stderr)![1]!;
    const holding = cli(["run", "--agent-stderr", "--session", id, "--agent", agent(), "wait"]);
    await holding.waitForStderr(/session-agent: session\/prompt \{"text":"wait"\}/);

    for (const flags of [
      ["--session", id],
      ["--name", "busy"],
    ]) {
      const refused = await cli(["run", ...flags, "--agent", agent(), "say two"]).result();
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        `Session ${id} is in use by another acp-terminal run (pid ${holding.child.pid}, since `,
      );
      expect(refused.stderr).not.toContain("session-agent: ");
    }

    holding.child.kill("SIGKILL");
    await holding.result();
    const locks = path.join(dir, "state", "acp-terminal", "locks");
    expect(readdirSync(locks)).toHaveLength(1); // left behind by the killed run
    const after = await cli(["run", "--session", id, "--agent", agent(), "say three"]).result();
    expect(after.code, after.stderr).toBe(0);
    expect(readdirSync(locks)).toHaveLength(0);
    expect(existsSync(locks)).toBe(true);
  });
});
