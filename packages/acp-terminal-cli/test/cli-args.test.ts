import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseCommand } from "../src/command/args.js";
import { USAGE } from "../src/command/flags.js";
import { exitCodeForStopReason } from "../src/exit-codes.js";
import { stdioMcpServer } from "../src/conversation/mcp-tools-offer.js";

const parse = (...argv: string[]) =>
  parseCommand(argv, "/home/me", (base, p) => path.resolve(base, p));

describe("acp-terminal arguments", () => {
  it("parses a full run command", () => {
    expect(
      parse(
        "run",
        "--agent",
        "npx my-agent --acp",
        "--cwd",
        "proj",
        "--pty",
        "--yes",
        "--allow",
        "git *",
        "--allow",
        "npm test",
        "--json",
        "--timeout",
        "2.5",
        "--agent-log",
        "a.log",
        "fix",
        "the",
        "build",
      ),
    ).toEqual({
      kind: "run",
      options: {
        agent: "npx my-agent --acp",
        prompt: "fix the build",
        cwd: "/home/me/proj",
        pty: true,
        yes: true,
        allow: ["git *", "npm test"],
        approval: {
          yes: true,
          allow: ["git *", "npm test"],
          allowAnywhere: false,
          sandbox: "off",
          sandboxNetwork: false,
        },
        json: true,
        timeoutMs: 2500,
        initTimeoutMs: 10_000,
        cancelGraceMs: 2_000,
        agentLog: "a.log",
        maxTerminals: 64,
        maxTotalTerminals: 1024,
      },
    });
  });

  it("defaults cwd to the current directory and everything else to off", () => {
    const parsed = parse("run", "--agent", "a", "hello");
    expect(parsed).toMatchObject({
      kind: "run",
      options: {
        cwd: "/home/me",
        pty: false,
        yes: false,
        allow: [],
        json: false,
        timeoutMs: undefined,
        initTimeoutMs: 10_000,
      },
    });
    expect(parse("run", "--agent", "a", "--init-timeout", "30", "x")).toMatchObject({
      options: { initTimeoutMs: 30_000 },
    });
    expect(parse("run", "--agent", "a", "--cancel-grace", "60", "x")).toMatchObject({
      options: { cancelGraceMs: 60_000 },
    });
  });

  it("reads prompts from stdin without a prompt or with -, and takes the session flags, each only when given", () => {
    for (const argv of [
      ["run", "--agent", "a"],
      ["run", "--agent", "a", "-"],
    ]) {
      const parsed = parse(...argv);
      expect(parsed).toMatchObject({ kind: "run", options: { prompt: undefined } });
      expect(parsed).not.toHaveProperty("options.session");
    }
    expect(
      parse(
        "run",
        "--agent",
        "a",
        "--session",
        "s-1",
        "--auth",
        "api-key",
        "--fs-allow",
        "docs",
        "--fs-allow",
        "/tmp",
        "--mcp-config",
        "mcp.json",
        "--quiet",
        "x",
      ),
    ).toMatchObject({
      options: {
        prompt: "x",
        session: {
          resume: "s-1",
          auth: "api-key",
          fsAllow: ["/home/me/docs", "/tmp"],
          mcpConfig: "/home/me/mcp.json",
          quiet: true,
        },
      },
    });
    expect(USAGE).toMatch(/--session ID[\s\S]*--auth METHOD[\s\S]*--fs-allow DIR/);
    expect(USAGE).toContain("claude, codex, gemini");
  });

  it("--approve-reads, --deny-all and --permission-policy are taken only when given; --deny-all with --yes or --approve-reads is an error naming both", () => {
    expect(parse("run", "--agent", "a", "x")).not.toHaveProperty("options.permissions");
    expect(
      parse("run", "--approve-reads", "--policy", "p.json", "--agent", "a", "x"),
    ).toMatchObject({
      options: { permissions: { approveReads: true, policySource: "p.json" } },
    });
    expect(parse("run", "--deny-all", "--agent", "a", "x")).toMatchObject({
      options: { permissions: { denyAll: true } },
    });
    expect(parse("run", "--deny-all", "--yes", "--agent", "a", "x")).toEqual({
      kind: "error",
      message: "--deny-all and --yes exclude each other: give one",
    });
    expect(parse("run", "--deny-all", "--approve-reads", "--agent", "a", "x")).toMatchObject({
      kind: "error",
      message: expect.stringContaining("--approve-reads"),
    });
  });

  it("--mcp-tools is off unless given, and the usage says what it offers", () => {
    expect(parse("run", "--agent", "a", "x")).not.toHaveProperty("options.mcpTools");
    expect(parse("run", "--mcp-tools", "--agent", "a", "x")).toMatchObject({
      options: { mcpTools: true },
    });
    expect(USAGE).toContain("--mcp-tools        offer the terminals as MCP tools");
  });

  it("--sandbox and --sandbox-network are passed on to the MCP server the CLI declares", () => {
    const parsed = parseCommand(
      [
        "run",
        "--agent",
        "a",
        "--sandbox",
        "workspace-write",
        "--sandbox-network",
        "--allow",
        "ls",
        "go",
      ],
      "/home/me",
      (base, p) => path.resolve(base, p),
    );
    expect(parsed).toMatchObject({
      kind: "run",
      options: { approval: { sandbox: "workspace-write", sandboxNetwork: true, allow: ["ls"] } },
    });
    if (parsed.kind !== "run") {
      throw new Error("expected run");
    }
    expect(stdioMcpServer({ cwd: "/w", approval: parsed.options.approval }).args.slice(2)).toEqual([
      "--workspace",
      "/w",
      "--allow",
      "ls",
      "--sandbox",
      "workspace-write",
      "--sandbox-network",
    ]);
  });

  it("answers help and version, and help with no command", () => {
    expect(parse("--help")).toEqual({ kind: "help" });
    expect(parse("-h")).toEqual({ kind: "help" });
    expect(parse()).toEqual({ kind: "help" });
    expect(parse("--version")).toEqual({ kind: "version" });
  });

  it("takes terminal limits per session and in all; the total follows a higher per-session limit (N-1, N, N+1)", () => {
    expect(parse("run", "--agent", "a", "x")).toMatchObject({
      options: { maxTerminals: 64, maxTotalTerminals: 1024 },
    });
    expect(parse("run", "--agent", "a", "--max-terminals", "1000", "x")).toMatchObject({
      options: { maxTerminals: 1000, maxTotalTerminals: 1024 },
    });
    expect(parse("run", "--agent", "a", "--max-terminals", "2000", "x")).toMatchObject({
      options: { maxTerminals: 2000, maxTotalTerminals: 2000 },
    });
    expect(parse("run", "--agent", "a", "--max-terminals", "65536", "x")).toMatchObject({
      options: { maxTerminals: 65536 },
    });
    expect(
      parse("run", "--agent", "a", "--max-terminals", "10", "--max-total-terminals", "10", "x"),
    ).toMatchObject({ options: { maxTerminals: 10, maxTotalTerminals: 10 } });
    expect(
      parse("run", "--agent", "a", "--max-terminals", "10", "--max-total-terminals", "11", "x"),
    ).toMatchObject({ options: { maxTerminals: 10, maxTotalTerminals: 11 } });
    expect(USAGE).toContain("--max-terminals N");
    expect(USAGE).toContain("--max-total-terminals N");
  });

  it.each([
    [["run", "hello"], /Missing --agent/],
    [["run", "--agent", "a", "  "], /Empty prompt: give it as the last argument, or - for stdin/],
    [
      ["run", "--agent", "a", "--timeout", "soon", "x"],
      /Invalid --timeout: expected a positive number of seconds, received "soon"/,
    ],
    [["run", "--agent", "a", "--timeout", "0", "x"], /Invalid --timeout/],
    [
      ["run", "--agent", "a", "--init-timeout", "", "x"],
      /Invalid --init-timeout: expected a positive number of seconds, received ""/,
    ],
    [
      ["run", "--agent", "a", "--cancel-grace", "0", "x"],
      /Invalid --cancel-grace: expected a positive number of seconds, received "0"/,
    ],
    [
      ["run", "--agent", "a", "--max-terminals", "0", "x"],
      /Invalid --max-terminals: expected a whole number of terminals, at least 1, received "0"/,
    ],
    [
      ["run", "--agent", "a", "--max-terminals", "2.5", "x"],
      /Invalid --max-terminals: expected a whole number of terminals, at least 1, received "2.5"/,
    ],
    [
      ["run", "--agent", "a", "--max-terminals", "", "x"],
      /Invalid --max-terminals: expected a whole number/,
    ],
    [
      ["run", "--agent", "a", "--max-terminals", "65537", "x"],
      /Invalid --max-terminals: at most 65536 terminals, received "65537"/,
    ],
    [
      ["run", "--agent", "a", "--max-total-terminals", "many", "x"],
      /Invalid --max-total-terminals: expected a whole number of terminals, at least 1, received "many"/,
    ],
    [
      ["run", "--agent", "a", "--max-terminals", "100", "--max-total-terminals", "99", "x"],
      /Invalid --max-total-terminals: 99 is below --max-terminals 100/,
    ],
    [["walk", "--agent", "a", "x"], /Unknown command: walk/],
    [["run", "--agent", "a", "--colour", "x"], /Unknown option '--colour'/],
  ])("reports %j as a usage error", (argv, message) => {
    const parsed = parse(...argv);
    expect(parsed.kind).toBe("error");
    expect(parsed.kind === "error" && parsed.message).toMatch(message);
  });

  it("documents every exit code in the usage text", () => {
    for (const code of [0, 1, 2, 3, 4, 5]) {
      expect(USAGE).toMatch(new RegExp(`^  ${code}  `, "m"));
    }
  });

  it("maps stop reasons to exit codes", () => {
    expect(exitCodeForStopReason("end_turn")).toBe(0);
    expect(exitCodeForStopReason("refusal")).toBe(2);
    expect(exitCodeForStopReason("max_tokens")).toBe(2);
    expect(exitCodeForStopReason("max_turn_requests")).toBe(2);
    expect(exitCodeForStopReason("cancelled")).toBe(3);
  });
});

describe("acp-terminal run --on", () => {
  const on = (...argv: string[]) => {
    const parsed = parse("run", "--agent", "a", "--cwd", "/srv/app dir", ...argv, "go");
    return parsed.kind === "run" ? parsed.options.on : parsed;
  };

  it("passes ssh and docker targets on, and mounts the session's cwd in a docker-image container", () => {
    expect(on("--on", "ssh://me@box:2222")).toBe("ssh://me@box:2222");
    expect(on("--on", "docker://app")).toBe("docker://app");
    expect(on("--on", "docker-image://img:1")).toBe(
      "docker-image://img:1?workspace=%2Fsrv%2Fapp%20dir",
    );
    expect(on("--on", "docker-image://img?network=none")).toBe(
      "docker-image://img?network=none&workspace=%2Fsrv%2Fapp%20dir",
    );
    expect(on("--on", "docker-image://img?workspace=/x:/y")).toBe(
      "docker-image://img?workspace=/x:/y",
    );
    expect(on("--on", "local")).toBeUndefined();
    expect(on()).toBeUndefined();
  });

  it("refuses a target it cannot read, as a usage error naming the forms", () => {
    expect(on("--on", "ssh://-oProxyCommand=x")).toEqual({
      kind: "error",
      message: expect.stringMatching(
        /^Invalid --on: expected "local", "ssh:\/\/\[user@\]host\[:port\]"/,
      ),
    });
  });
});
