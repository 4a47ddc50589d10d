/**
 * `acp-terminal run --protocol v2|auto` against a real ACP v2 (draft) agent built with the SDK
 * (fixtures/v2-agent.mjs) over real stdio: agent-owned terminals rendered through the emulator,
 * their advertised size, snapshots, unknown variants, Ctrl-C's terminal/cancel, background work,
 * version negotiation, and a flood that must stay bounded.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  CLI,
  FIXTURE_AGENT,
  killAllStarted,
  nodeAgent,
  REPO,
  runCli,
  startCli,
  track,
} from "./fixtures/cli-process.js";
import { startCliOnTty } from "./fixtures/cli-pty.js";
import { until, withDeadline } from "./support/until.js";

const V2_AGENT = fileURLToPath(new URL("./fixtures/v2-agent.mjs", import.meta.url));
const v2Agent = (...args: string[]) => nodeAgent(V2_AGENT, ...args);

afterEach(() => {
  expect(killAllStarted()).toEqual([]);
});

type Line = Record<string, any>;
const jsonLines = (stdout: string): Line[] =>
  stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Line);

describe("acp-terminal run --protocol v2", () => {
  it("piped, each agent-owned terminal shows its final screen: a redrawn progress bar is one line, a snapshot replaces what came before it, a chunk sent before its terminal was announced is kept", async () => {
    const { code, stdout, stderr } = await runCli([
      "run",
      "--protocol",
      "v2",
      "--agent",
      v2Agent("render"),
      "go",
    ]);
    expect(stdout).toBe(
      [
        "▸ install [in_progress]",
        "✓ install [completed]",
        "  │ building",
        "  │ [##########] 100%",
        "  │ done",
        "  └ exit 0",
        "▸ wrap [in_progress]",
        "✓ wrap [completed]",
        `  │ ${"a".repeat(40)}B${"a".repeat(9)}`,
        "  └ exit 0",
        "▸ replay [in_progress]",
        "✗ replay [failed]",
        "  │ fresh 1",
        "  │ fresh 2",
        "  │ fresh 3",
        "  └ exit 2",
        "▸ early [in_progress]",
        "✓ early [completed]",
        "  │ early bytes",
        "  └ exit 0",
        "all done",
        "",
      ].join("\n"),
    );
    expect(stderr).toMatch(/── end_turn · 4 terminals: 3 exit 0, 1 exit 2 · .* · exit code 0\n$/);
    expect(code).toBe(0);
  });

  it("honours the advertised size: a 50-character line on a 20-column terminal wraps, so a \\r returns to the start of its last row only", async () => {
    const { stdout } = await runCli([
      "run",
      "--protocol",
      "v2",
      "--json",
      "--agent",
      v2Agent("render"),
      "go",
    ]);
    const exit = jsonLines(stdout).find((l) => l.event === "exit" && l.terminalId === "wrap");
    // At 80 columns (or with \r taken as "back to the line's start") this would be "B" + 49 "a".
    expect(exit).toMatchObject({
      screen: `${"a".repeat(40)}B${"a".repeat(9)}\n`,
      size: { cols: 20, rows: 5 },
    });
  });

  it("--json reports v2 terminals with v1's event kinds (create, output, exit) plus protocol, size and the final screen; a snapshot is an output event with replace: true", async () => {
    const { code, stdout } = await runCli([
      "run",
      "--protocol",
      "v2",
      "--json",
      "--agent",
      v2Agent("render"),
      "go",
    ]);
    const lines = jsonLines(stdout);
    const events = (id: string) =>
      lines.filter((l) => l.type === "terminal" && l.terminalId === id).map((l) => l.event);
    expect(events("progress")).toEqual([
      "create",
      "output",
      "output",
      "output",
      "output",
      "output",
      "output",
      "exit",
    ]);
    expect(lines.find((l) => l.event === "create" && l.terminalId === "progress")).toEqual({
      type: "terminal",
      event: "create",
      terminalId: "progress",
      command: "npm install",
      args: [],
      cwd: path.resolve(REPO),
      protocol: "v2",
      size: { cols: 40, rows: 10 },
      cancellable: false,
    });
    expect(lines.find((l) => l.event === "exit" && l.terminalId === "progress")).toMatchObject({
      exitStatus: { exitCode: 0, signal: null },
      screen: "building\n[##########] 100%\ndone\n",
    });
    const replay = lines.filter((l) => l.event === "output" && l.terminalId === "replay");
    expect(replay.map((l) => [l.output, l.replace])).toEqual([
      ["stale line\n", undefined],
      ["fresh 1\nfresh 2\n", true],
      ["fresh 3\n", undefined],
    ]);
    // A chunk before the announcement: created with nothing known, then an update gives the command.
    expect(events("early")).toEqual(["create", "output", "update", "exit"]);
    expect(lines.find((l) => l.event === "update")).toMatchObject({ command: "late announce" });
    expect(lines.at(-1)).toMatchObject({ type: "result", stopReason: "end_turn", exitCode: 0 });
    expect(lines.at(-1)!.terminals).toHaveLength(4);
    expect(code).toBe(0);
  });

  it("an unknown _foo session update ends nothing: --json passes it on as the agent sent it", async () => {
    const { code, stdout } = await runCli([
      "run",
      "--protocol",
      "v2",
      "--json",
      "--agent",
      v2Agent("render"),
      "go",
    ]);
    expect(jsonLines(stdout)).toContainEqual({
      type: "session_update",
      protocol: "v2",
      update: { sessionUpdate: "_foo", anything: { nested: [1, 2, 3] } },
    });
    expect(code).toBe(0);
  });
});

describe("--mcp-tools under --protocol v2", () => {
  it("declares the stdio server acp-terminal mcp with the CLI's policy to an agent that takes stdio MCP servers, and nothing without the flag", async () => {
    const offered = await runCli([
      "run",
      "--protocol",
      "v2",
      "--mcp-tools",
      "--allow",
      "git *",
      "--agent",
      v2Agent("render"),
      "go",
    ]);
    const servers = JSON.parse(/v2-fixture: mcpServers=(.*)\n/.exec(offered.stderr)![1]!);
    expect(servers).toEqual([
      {
        type: "stdio",
        name: "terminals",
        command: process.execPath,
        args: [CLI, "mcp", "--workspace", path.resolve(REPO), "--allow", "git *"],
        env: [],
      },
    ]);
    expect(offered.code).toBe(0);
    const plain = await runCli(["run", "--protocol", "v2", "--agent", v2Agent("render"), "go"]);
    expect(plain.stderr).toContain("v2-fixture: mcpServers=[]\n");
  });
});

describe("--mcp-tools under --protocol v2 with MCP-over-ACP", () => {
  it("declares the tools as an MCP server on the ACP connection to an agent that takes MCP-over-ACP (session.mcp.acp)", async () => {
    const { code, stderr } = await runCli([
      "run",
      "--protocol",
      "v2",
      "--mcp-tools",
      "--agent",
      v2Agent("render", "--mcp-acp"),
      "go",
    ]);
    const servers = JSON.parse(/v2-fixture: mcpServers=(.*)\n/.exec(stderr)![1]!);
    expect(servers).toEqual([{ type: "acp", name: "terminals", serverId: expect.any(String) }]);
    expect(code).toBe(0);
  });
});

describe("Ctrl-C under --protocol v2", () => {
  for (const json of [false, true]) {
    it(`${json ? "--json" : "text"}: sends terminal/cancel to the running terminal that advertises cancel (not to the one that does not), and only then session/cancel; the turn ends cancelled; background work shows as listed`, async () => {
      const dir = await mkdtemp(path.join(tmpdir(), "acp-v2-cancel-"));
      try {
        const log = path.join(dir, "order.log");
        const cli = startCli([
          "run",
          "--protocol",
          "v2",
          ...(json ? ["--json"] : []),
          "--agent",
          v2Agent("cancel", log),
          "go",
        ]);
        await cli.waitForStderr(/v2-fixture: ready/);
        // The background list is the fixture's last update before "ready"; the CLI shows it.
        await until(() => cli.stdout().includes(json ? '"type":"background"' : "⋯ background:"), {
          message: "the background work shown",
        });
        cli.child.kill("SIGINT");
        const { code, stdout } = await cli.result();
        expect(await readFile(log, "utf8")).toBe("terminal/cancel sleeper\nsession/cancel\n");
        expect(code).toBe(3);
        if (json) {
          const lines = jsonLines(stdout);
          expect(lines.filter((l) => l.type === "background").map((l) => l.work)).toEqual([
            [{ type: "terminal", terminalId: "sleeper", label: "sleep 100" }],
            [],
          ]);
          expect(lines.find((l) => l.event === "exit" && l.terminalId === "sleeper")).toMatchObject(
            {
              exitStatus: { exitCode: null, signal: "SIGTERM" },
            },
          );
          expect(lines.at(-1)).toMatchObject({
            type: "result",
            stopReason: "cancelled",
            exitCode: 3,
          });
        } else {
          expect(stdout).toContain("⋯ background: terminal sleeper (sleep 100)\n");
          expect(stdout).toContain("⋯ background: none\n");
          expect(stdout).toContain("  │ zzz\n  └ killed by SIGTERM\n");
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});

describe("--protocol v2 on a TTY", () => {
  it("draws a running agent-owned terminal live in the region, and Ctrl-C typed on the TTY cancels it before the turn", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "acp-v2-tty-"));
    try {
      const log = path.join(dir, "order.log");
      const cli = startCliOnTty([
        "run",
        "--protocol",
        "v2",
        "--agent",
        v2Agent("cancel", log),
        "go",
      ]);
      track(cli.pty.pid);
      await cli.waitFor("v2-fixture: ready");
      // Live: the terminal's output under its running tool call, before anything ended.
      await cli.waitFor("▸ sleep [in_progress]\r\n  │ zzz\r\n");
      cli.pty.write("\x03");
      expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(3);
      expect(await readFile(log, "utf8")).toBe("terminal/cancel sleeper\nsession/cancel\n");
      expect(cli.screen()).toContain("  │ zzz\r\n  └ killed by SIGTERM\r\n");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("protocol negotiation", () => {
  it("--protocol v1 or v1-meta against a v2-only agent fails with a message naming the default", async () => {
    for (const flags of [
      ["--protocol", "v1"],
      ["--protocol", "v1-meta"],
    ]) {
      const { code, stderr } = await runCli(["run", ...flags, "--agent", v2Agent("render"), "go"]);
      expect(stderr).toContain(
        "Agent does not speak ACP version 1: it supports 2; run without --protocol (auto, the default) or with --protocol v2",
      );
      expect(code).toBe(4);
    }
  });

  it("--protocol v2 against a v1-only agent fails with a message naming --protocol v1", async () => {
    const { code, stderr } = await runCli([
      "run",
      "--protocol",
      "v2",
      "--agent",
      nodeAgent(FIXTURE_AGENT, "echo"),
      "hi",
    ]);
    expect(stderr).toContain(
      "Agent answered the ACP v2 offer with protocol version 1; run without --protocol (auto, the default) or with --protocol v1-meta",
    );
    expect(code).toBe(4);
  });

  it("--protocol auto speaks v2 to a v2 agent and v1 to a v1 agent, each through to end_turn", async () => {
    const v2 = await runCli([
      "run",
      "--protocol",
      "auto",
      "--json",
      "--agent",
      v2Agent("render"),
      "go",
    ]);
    const v2Lines = jsonLines(v2.stdout);
    expect(v2Lines.find((l) => l.type === "terminal")).toMatchObject({ protocol: "v2" });
    expect(v2Lines.at(-1)).toMatchObject({ stopReason: "end_turn", exitCode: 0 });
    const v1 = await runCli([
      "run",
      "--protocol",
      "auto",
      "--yes",
      "--agent",
      nodeAgent(FIXTURE_AGENT, "terminal"),
      "go",
    ]);
    expect(v1.stdout).toContain("  │ first\n  │ second\n");
    expect(v1.stderr).toMatch(/── end_turn · 1 terminal: 1 exit 3 · /);
    expect(v1.code).toBe(0);
  });

  it("--protocol auto waits --init-timeout once for a silent agent, then says so", async () => {
    const { code, stderr } = await runCli([
      "run",
      "--protocol",
      "auto",
      "--init-timeout",
      "1",
      "--agent",
      "exec sleep 30",
      "go",
    ]);
    expect(stderr).toContain(
      'Not an ACP agent: "exec sleep 30" did not answer initialize within 1 s',
    );
    // One wait, not the offer's and then the v1 client's.
    expect(stderr).toMatch(/── no stop reason · no terminals · 1\.\d s · exit code 4\n$/);
    expect(code).toBe(4);
  });

  it("Ctrl-C while the v2 offer waits for its answer stops the run and the agent's process group", async () => {
    const cli = startCli([
      "run",
      "--protocol",
      "auto",
      "--agent",
      `echo "agent-pid $$" >&2; exec sleep 30`,
      "go",
    ]);
    const [, pid] = await cli.waitForStderr(/agent-pid (\d+)/);
    track(Number(pid));
    cli.child.kill("SIGINT");
    const { code, stderr } = await cli.result();
    expect(stderr).toContain("Interrupted\n");
    expect(code).toBe(3);
    // afterEach: the agent (tracked) must already be gone.
  });

  it("an unknown --protocol is a usage error naming the choices", async () => {
    const { code, stderr } = await runCli(["run", "--protocol", "v3", "--agent", "x", "go"]);
    expect(stderr).toBe(
      'Invalid --protocol: expected one of auto, v2, v1-meta, v1, received "v3"\nRun "acp-terminal --help" for usage.\n',
    );
    expect(code).toBe(1);
  });
});

/** A generous bound, not a figure: without the byte caps, 100 MiB held would be past it on its own. */
const MAX_RSS_MIB = 320;
const TIME = "/usr/bin/time";

describe("a flooding v2 agent", () => {
  it.skipIf(!existsSync(TIME))(
    "100 MiB of chunks to one terminal and 2,000 terminals keep the CLI's max RSS bounded; terminals past --max-total-terminals are ignored with a notice",
    async () => {
      const child = spawn(
        TIME,
        [
          "-f",
          "maxrss_kb=%M",
          process.execPath,
          CLI,
          "run",
          "--protocol",
          "v2",
          "--agent",
          v2Agent("flood", "100", "2000"),
          "go",
        ],
        { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] },
      );
      track(child.pid!);
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      const code = await withDeadline(
        new Promise<number | null>((resolve) => child.once("close", resolve)),
        120_000,
        "the flooded CLI to exit",
      );
      const maxRssMiB = Number(/maxrss_kb=(\d+)/.exec(stderr)?.[1]) / 1024;
      expect(stderr).toContain(
        "the agent has more terminals than shown (at most 64 running and 1024 in all",
      );
      expect(stderr).toMatch(/── end_turn · 1024 terminals: 1024 exit 0 · /);
      expect(stdout).toContain("✓ flood [completed]\n");
      expect(maxRssMiB).toBeLessThan(MAX_RSS_MIB);
      expect(code).toBe(0);
    },
    150_000,
  );
});
