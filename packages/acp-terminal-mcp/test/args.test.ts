import path from "node:path";
import { describe, expect, it } from "vitest";
import { MCP_USAGE, parseMcpCommand } from "../src/args.js";
import { refusal } from "../src/policy.js";

const parse = (argv: string[], env: NodeJS.ProcessEnv = {}) => parseMcpCommand(argv, "/home/me", (base, p) => path.resolve(base, p), env);
const TOKEN = "0123456789abcdef";

function errorOf(argv: string[], env: NodeJS.ProcessEnv = {}): string {
  const parsed = parse(argv, env);
  if (parsed.kind !== "error") throw new Error(`expected an error, got ${JSON.stringify(parsed)}`);
  return parsed.message;
}

describe("acp-terminal mcp arguments", () => {
  it("defaults to the exec surface over stdio in the current directory, running nothing", () => {
    expect(parse([])).toEqual({ kind: "serve", options: { workspace: "/home/me", tools: "exec", policy: { kind: "deny" }, progressIntervalMs: 1000 } });
  });

  it("parses every option", () => {
    const parsed = parse(["--workspace", "proj", "--tools", "shell", "--allow", "ls", "--allow", "git status", "--max-runs", "4", "--max-output-chars", "1000", "--output-limit", "1024", "--progress-interval", "0.5", "--http", "[::1]:8080", "--token", TOKEN]);
    expect(parsed).toMatchObject({
      kind: "serve",
      options: { workspace: "/home/me/proj", tools: "shell", policy: { kind: "allow", sources: ["ls", "git status"] }, maxConcurrentRuns: 4, maxOutputChars: 1000, outputByteLimit: 1024, progressIntervalMs: 500, http: { host: "::1", port: 8080, loopback: true }, token: TOKEN },
    });
  });

  it("--yes wins over --allow, as the run CLI's --yes allows everything", () => {
    expect(parse(["-y", "--allow", "ls"])).toMatchObject({ options: { policy: { kind: "yes" } } });
  });

  it("refuses a tool set it does not have, naming the ones it has", () => {
    expect(errorOf(["--tools", "bash"])).toBe('Invalid --tools: expected one of exec, process, shell, received "bash"');
  });

  it("checks counts at their bounds", () => {
    expect(parse(["--max-runs", "1"]).kind).toBe("serve");
    expect(errorOf(["--max-runs", "0"])).toBe('Invalid --max-runs: expected an integer from 1 to 1024, received "0"');
    expect(parse(["--max-runs", "1024"]).kind).toBe("serve");
    expect(errorOf(["--max-runs", "1025"])).toContain("from 1 to 1024");
    expect(errorOf(["--max-output-chars", "999"])).toContain("from 1000 to 5000000");
    expect(errorOf(["--output-limit", "1.5"])).toContain("--output-limit");
    expect(errorOf(["--progress-interval", "0.009"])).toBe('Invalid --progress-interval: expected seconds from 0.01 to 3600, received "0.009"');
    expect(parse(["--progress-interval", "0.01"])).toMatchObject({ options: { progressIntervalMs: 10 } });
  });

  it("refuses a pattern that is not a regular expression, or too long", () => {
    expect(errorOf(["--allow", "git ("])).toMatch(/^Invalid --allow: "git \(" is not a regular expression/);
    expect(errorOf(["--allow", "x".repeat(513)])).toContain("1 to 512 characters");
  });

  it("a pattern must match the whole command line", () => {
    const parsed = parse(["--allow", "ls( -l)?"]);
    if (parsed.kind !== "serve") throw new Error("expected serve");
    expect(refusal(parsed.options.policy, "ls -l")).toBeUndefined();
    expect(refusal(parsed.options.policy, "ls -l; rm -rf ~")).toContain("not allowed");
    expect(refusal(parsed.options.policy, "echo; ls")).toContain("not allowed");
  });

  it("requires a token off loopback, from --token or ACP_TERMINAL_MCP_TOKEN", () => {
    expect(errorOf(["--http", "0.0.0.0:8765"])).toBe("--http 0.0.0.0:8765 is not a loopback address: give a bearer token with --token or ACP_TERMINAL_MCP_TOKEN, so that only your agent can run commands here");
    expect(parse(["--http", "0.0.0.0:8765", "--token", TOKEN]).kind).toBe("serve");
    expect(parse(["--http", "0.0.0.0:8765"], { ACP_TERMINAL_MCP_TOKEN: TOKEN })).toMatchObject({ options: { token: TOKEN } });
    for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "[::1]"]) expect(parse(["--http", `${host}:0`]).kind).toBe("serve");
  });

  it("refuses a short token, a token without --http, and malformed addresses", () => {
    expect(errorOf(["--http", "127.0.0.1:1", "--token", TOKEN.slice(1)])).toContain("at least 16 characters");
    expect(errorOf(["--token", TOKEN])).toContain("--token (or ACP_TERMINAL_MCP_TOKEN) is for --http");
    for (const address of ["8765", "host:", "host:65536", "[zz]:1", "::1:80"]) expect(errorOf(["--http", address])).toMatch(/^Invalid --http/);
  });

  it("usage names every option it parses", () => {
    for (const flag of ["--workspace", "--tools", "--yes", "--allow", "--max-runs", "--max-output-chars", "--output-limit", "--progress-interval", "--http", "--token", "--help"]) expect(MCP_USAGE).toContain(flag);
  });
});
