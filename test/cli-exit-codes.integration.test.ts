/**
 * The exit codes of `acp-terminal run`, each provoked the way a user would meet it.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isAlive } from "./support/processes.js";
import {
  CONFORMANCE_AGENT,
  FIXTURE_AGENT,
  killAllStarted,
  MCP_SERVER,
  nodeAgent,
  runCli,
  startCli,
} from "./fixtures/cli-process.js";

afterEach(() => {
  expect(killAllStarted()).toEqual([]);
});

const fixture = (mode: string) => nodeAgent(FIXTURE_AGENT, mode);

describe("acp-terminal run exit codes", () => {
  it("2 when the agent refuses", async () => {
    const { code, stderr } = await runCli(["run", "--agent", fixture("refuse"), "go"]);
    expect(stderr).toContain("── refusal ·");
    expect(code).toBe(2);
  });

  it("4 with one clear line when the agent is not an ACP agent", async () => {
    const { code, stderr } = await runCli(["run", "--agent", "echo hello", "go"]);
    expect(stderr.split("\n")[0]).toBe(
      'Not an ACP agent: "echo hello" wrote "hello" on stdout where JSON-RPC was expected',
    );
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(code).toBe(4);
  });

  it("4 saying it is not an ACP agent when cat echoes our requests back, or an MCP server answers", async () => {
    const cat = await runCli(["run", "--agent", "cat", "go"]);
    expect(cat.stderr.split("\n")[0]).toBe(
      'Not an ACP agent: "cat" answered initialize with "Method not found" (-32601); it probably speaks another JSON-RPC protocol or echoes its input',
    );
    expect(cat.code).toBe(4);
    const mcpAgent = nodeAgent(MCP_SERVER);
    const mcp = await runCli(["run", "--agent", mcpAgent, "go"]);
    expect(mcp.stderr.split("\n")[0]).toBe(
      `Not an ACP agent: "${mcpAgent}" answered initialize with protocolVersion "2024-11-05" (ACP's is a number, 1; a date like "2024-11-05" is MCP's)`,
    );
    expect(mcp.code).toBe(4);
  });

  it("4 when the agent never answers initialize within --init-timeout", async () => {
    const { code, stderr } = await runCli([
      "run",
      "--init-timeout",
      "0.5",
      "--agent",
      "sleep 30",
      "go",
    ]);
    expect(stderr.split("\n")[0]).toBe(
      'Not an ACP agent: "sleep 30" did not answer initialize within 0.5 s (if it is just slow to start, raise --init-timeout)',
    );
    expect(code).toBe(4);
  });

  it("4 when the agent exits before answering initialize", async () => {
    const { code, stderr } = await runCli([
      "run",
      "--agent",
      nodeAgent("-e", "process.exit(1)"),
      "go",
    ]);
    expect(stderr.split("\n")[0]).toBe(
      "Agent exited with code 1 before answering initialize; see its stderr above",
    );
    expect(code).toBe(4);
  });

  it("4 when the agent answers with an error or another protocol version", async () => {
    const auth = await runCli(["run", "--agent", fixture("auth"), "go"]);
    // After the line that says which agent runs.
    expect(auth.stderr.split("\n")[1]).toBe("session/new failed: Authentication required");
    expect(auth.code).toBe(4);
    // Forced to v1, an answer with version 2 is another version; offered v2 (the default), an
    // answer with version 2 that is not v2's shape says so and how to speak v1.
    const v2 = await runCli(["run", "--protocol", "v1", "--agent", fixture("v2"), "go"]);
    expect(v2.stderr.split("\n")[0]).toBe(
      "Agent speaks ACP protocol version 2; acp-terminal speaks 1",
    );
    expect(v2.code).toBe(4);
    // Offered v2 (the default), it answers 2 in v1's format: started again with v1, it answers 2
    // again; nothing is remembered of an agent that speaks neither.
    const cache = await mkdtemp(path.join(tmpdir(), "acp-terminal-cache-"));
    try {
      const auto = await startCli(["run", "--agent", fixture("v2"), "go"], {
        env: { ...process.env, XDG_CACHE_HOME: cache },
      }).result();
      expect(auto.stderr.split("\n").slice(0, 2)).toEqual([
        expect.stringMatching(
          /^acp-terminal: the agent answered the ACP v2 offer with version 2 in v1's format: started it again speaking ACP v1/,
        ),
        "Agent speaks ACP protocol version 2; acp-terminal speaks 1",
      ]);
      expect(auto.code).toBe(4);
      expect(existsSync(path.join(cache, "acp-terminal", "protocols.json"))).toBe(false);
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });

  it("0 for an agent that answers the v2 offer in v1's format (droid): started again with v1, remembered, and spoken v1 at once the next time", async () => {
    const cache = await mkdtemp(path.join(tmpdir(), "acp-terminal-cache-"));
    const env = { ...process.env, XDG_CACHE_HOME: cache };
    const agent = fixture("v2-echo");
    try {
      const first = await startCli(["run", "--agent", agent, "go"], { env }).result();
      expect(first.code).toBe(0);
      expect(first.stdout).toContain("echo: go");
      const launches = [...first.stderr.matchAll(/initialize (\d+) pid=(\d+)/g)];
      expect(launches.map((m) => m[1])).toEqual(["2", "1"]);
      expect(isAlive(Number(launches[0]![2]))).toBe(false);
      const file = path.join(cache, "acp-terminal", "protocols.json");
      expect(first.stderr).toContain(`(in ${file}; delete the entry to offer v2 again)`);
      expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({
        agents: { [agent]: { protocol: "v1" } },
      });
      const second = await startCli(["run", "--agent", agent, "go"], { env }).result();
      expect(second.code).toBe(0);
      expect(second.stdout).toContain("echo: go");
      expect([...second.stderr.matchAll(/initialize (\d+)/g)].map((m) => m[1])).toEqual(["1"]);
      // No line about the protocol (only the agent and the session are said at start).
      expect(second.stderr).not.toMatch(/ACP v1, which is remembered|protocol: ACP v1/);
      expect(second.stderr.match(/^acp-terminal: /gm)).toHaveLength(2);
      // --protocol v2 forced still offers v2 (and says how it was answered).
      const forced = await startCli(["run", "--protocol", "v2", "--agent", agent, "go"], {
        env,
      }).result();
      expect(forced.code).toBe(4);
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });

  it("5 when --timeout elapses", async () => {
    const { code, stderr } = await runCli([
      "run",
      "--yes",
      "--timeout",
      "0.5",
      "--agent",
      fixture("stubborn"),
      "go",
    ]);
    // Where the run was when time ran out depends on how fast the machine starts the agent.
    expect(stderr).toMatch(
      /^Timed out after 0\.5 s \(--timeout\), (waiting for initialize|waiting for session\/new|during the turn)$/m,
    );
    expect(code).toBe(5);
  });

  it("3 when whoever reads its stdout goes away (| head)", async () => {
    const cli = startCli(["run", "--yes", "--agent", nodeAgent(CONFORMANCE_AGENT), "go"]);
    cli.child.stdout.once("data", () => cli.child.stdout.destroy());
    const { code, stderr } = await cli.result();
    expect(stderr).toContain("Stopped: stdout closed (write EPIPE)");
    expect(code).toBe(3);
  });
});
