import { accessSync, constants } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MCP_USAGE, parseMcpCommand } from "../src/args.js";
import type { AuthorizeRequest } from "acp-terminal";
import { authorizeHook } from "../src/policy.js";

const parse = (argv: string[], env: NodeJS.ProcessEnv = {}) =>
  parseMcpCommand(argv, "/home/me", (base, p) => path.resolve(base, p), env);
const TOKEN = "0123456789abcdef";

/** Where PATH's absolute entries find `name`, as the host resolves a program; null when nowhere. */
function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? "").split(":").filter((d) => d.startsWith("/"))) {
    try {
      accessSync(path.join(dir, name), constants.X_OK);
      return path.join(dir, name);
    } catch {
      // not here: the next entry
    }
  }
  return null;
}

function errorOf(argv: string[], env: NodeJS.ProcessEnv = {}): string {
  const parsed = parse(argv, env);
  if (parsed.kind !== "error") {
    throw new Error(`expected an error, got ${JSON.stringify(parsed)}`);
  }
  return parsed.message;
}

describe("acp-terminal mcp arguments", () => {
  it("defaults to the exec surface over stdio in the current directory, running nothing", () => {
    expect(parse([])).toEqual({
      kind: "serve",
      options: {
        workspace: "/home/me",
        tools: "exec",
        policy: {
          yes: false,
          allow: [],
          allowAnywhere: false,
          sandbox: "off",
          sandboxNetwork: false,
        },
        progressIntervalMs: 1000,
      },
    });
  });

  it("parses every option", () => {
    const parsed = parse([
      "--workspace",
      "proj",
      "--tools",
      "shell",
      "--allow",
      "ls",
      "--allow",
      "git status",
      "--max-runs",
      "4",
      "--max-output-chars",
      "1000",
      "--output-limit",
      "1024",
      "--progress-interval",
      "0.5",
      "--http",
      "[::1]:8080",
      "--token",
      TOKEN,
    ]);
    expect(parsed).toMatchObject({
      kind: "serve",
      options: {
        workspace: "/home/me/proj",
        tools: "shell",
        policy: { yes: false, allow: ["ls", "git status"], sandbox: "off", sandboxNetwork: false },
        maxConcurrentRuns: 4,
        maxOutputChars: 1000,
        outputByteLimit: 1024,
        progressIntervalMs: 500,
        http: { host: "::1", port: 8080, loopback: true },
        token: TOKEN,
      },
    });
  });

  it("--yes wins over --allow, as the run CLI's --yes allows everything", () => {
    expect(parse(["-y", "--allow", "ls"])).toMatchObject({ options: { policy: { yes: true } } });
  });

  it("refuses a tool set it does not have, naming the ones it has", () => {
    expect(errorOf(["--tools", "bash"])).toBe(
      'Invalid --tools: expected one of exec, process, shell, unified, received "bash"',
    );
  });

  it("checks counts at their bounds", () => {
    expect(parse(["--max-runs", "1"]).kind).toBe("serve");
    expect(errorOf(["--max-runs", "0"])).toBe(
      'Invalid --max-runs: expected an integer from 1 to 1024, received "0"',
    );
    expect(parse(["--max-runs", "1024"]).kind).toBe("serve");
    expect(errorOf(["--max-runs", "1025"])).toContain("from 1 to 1024");
    expect(errorOf(["--max-output-chars", "999"])).toContain("from 1000 to 5000000");
    expect(errorOf(["--output-limit", "1.5"])).toContain("--output-limit");
    expect(errorOf(["--progress-interval", "0.009"])).toBe(
      'Invalid --progress-interval: expected seconds from 0.01 to 3600, received "0.009"',
    );
    expect(parse(["--progress-interval", "0.01"])).toMatchObject({
      options: { progressIntervalMs: 10 },
    });
  });

  it("refuses a pattern acp-terminal run --allow refuses, with the same message", () => {
    expect(errorOf(["--allow", "* status"])).toBe(
      `Invalid --allow: "* status": the command (first word) must be written out, without * (example: 'git *' or 'npm run test:*')`,
    );
    expect(errorOf(["--allow", "git 'log'"])).toContain(
      "quotes, backslashes and newlines are not supported",
    );
    expect(errorOf(["--allow", " "])).toContain("it is empty");
    expect(errorOf(["--allow", "x".repeat(1001)])).toContain("longer than 1000 characters");
  });

  describe("a pattern approves what acp-terminal run --allow approves", () => {
    const hook = () => {
      const parsed = parse(["--allow", "git *", "--allow", "ls"]);
      if (parsed.kind !== "serve") {
        throw new Error("expected serve");
      }
      return authorizeHook(parsed.options.policy);
    };
    const owner = { connectionId: "mcp", sessionId: "mcp" };
    /** A command line as the host asks about it: its first word resolved on PATH. */
    const line = (command: string, env: AuthorizeRequest["env"] = []): AuthorizeRequest => ({
      action: "create",
      owner,
      command,
      args: [],
      cwd: "/",
      shell: true,
      env,
      program: onPath(command.split(" ")[0]!),
      argv: ["/bin/bash", "-c", command],
      sandbox: "off",
      sessionCwd: "/",
    });

    it("the first word literally, each later word or * glob a word, a last * any further words", async () => {
      for (const command of ["git", "git status", "git log -p"]) {
        // Confined (read-only sandbox, no network), with git's env.
        expect(await hook()(line(command))).toMatchObject({ allow: true, confined: true });
      }
      expect(await hook()(line("ls"))).toEqual({ allow: true, confined: true });
      for (const command of ["ls -l", "gitk", "rm -rf /"]) {
        expect(await hook()(line(command))).toContain(
          "no --allow pattern of this server matches it (git *, ls)",
        );
      }
    });

    it("never a command line with shell syntax, even when the pattern's words would match", async () => {
      for (const command of [
        "git status; rm -rf ~",
        "git log $(id)",
        "git status && id",
        "git status | sh",
        "git `id`",
        "git status > /etc/x",
      ]) {
        expect(await hook()(line(command))).toContain(
          "no --allow pattern of this server matches it (git *, ls)",
        );
      }
    });

    it("never a request that sets environment variables, a stdin write or a signal", async () => {
      expect(
        await hook()(line("git status", [{ name: "GIT_EXTERNAL_DIFF", value: "sh" }])),
      ).not.toBe(true);
      expect(
        await hook()({
          ...line("git status"),
          action: "write",
          terminalId: "t",
          data: new Uint8Array(1),
          eof: false,
        }),
      ).not.toBe(true);
      expect(
        await hook()({
          ...line("git status"),
          action: "signal",
          terminalId: "t",
          signal: "SIGINT",
        }),
      ).not.toBe(true);
    });

    it("--yes allows everything; no flag allows nothing and says how to allow", async () => {
      const yes = parse(["--yes"]);
      const none = parse([]);
      if (yes.kind !== "serve" || none.kind !== "serve") {
        throw new Error("expected serve");
      }
      expect(await authorizeHook(yes.options.policy)(line("git status; id"))).toBe(true);
      expect(await authorizeHook(none.options.policy)(line("git status"))).toBe(
        "this server runs nothing without approval and there is no one to ask; restart it with --allow PATTERN or --yes",
      );
    });
  });

  it("takes the token from --token or ACP_TERMINAL_MCP_TOKEN on any address, and leaves it to the server to make one when none is given", () => {
    expect(parse(["--http", "0.0.0.0:8765", "--token", TOKEN]).kind).toBe("serve");
    expect(parse(["--http", "0.0.0.0:8765"], { ACP_TERMINAL_MCP_TOKEN: TOKEN })).toMatchObject({
      options: { token: TOKEN },
    });
    for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "[::1]", "0.0.0.0"]) {
      const parsed = parse(["--http", `${host}:0`]);
      expect(parsed.kind).toBe("serve");
      expect(parsed.kind === "serve" ? parsed.options.token : "not served").toBeUndefined();
    }
    expect(parse(["--http", "127.0.0.1:0", "--token-file", "tok"])).toMatchObject({
      options: { tokenFile: expect.stringMatching(/\/tok$/) },
    });
    expect(errorOf(["--token-file", "tok"])).toBe(
      "--token-file is for --http: a stdio server has no token",
    );
  });

  it("refuses a short token, a token without --http, and malformed addresses", () => {
    expect(errorOf(["--http", "127.0.0.1:1", "--token", TOKEN.slice(1)])).toContain(
      "at least 16 characters",
    );
    expect(errorOf(["--token", TOKEN])).toContain(
      "--token (or ACP_TERMINAL_MCP_TOKEN) is for --http",
    );
    for (const address of ["8765", "host:", "host:65536", "[zz]:1", "::1:80"]) {
      expect(errorOf(["--http", address])).toMatch(/^Invalid --http/);
    }
  });

  it("--sandbox and --sandbox-network, in acp-terminal run's words", () => {
    expect(parse(["--sandbox", "read-only", "--sandbox-network", "--allow", "ls"])).toMatchObject({
      options: {
        policy: { yes: false, allow: ["ls"], sandbox: "read-only", sandboxNetwork: true },
      },
    });
    expect(errorOf(["--sandbox", "on"])).toBe(
      'Invalid --sandbox: expected one of read-only, workspace-write, off, received "on"',
    );
    expect(errorOf(["--sandbox-network"])).toContain("--sandbox-network needs --sandbox");
  });

  it("usage names every option it parses", () => {
    for (const flag of [
      "--workspace",
      "--tools",
      "--yes",
      "--allow",
      "--sandbox",
      "--sandbox-network",
      "--max-runs",
      "--max-output-chars",
      "--output-limit",
      "--progress-interval",
      "--http",
      "--token-file",
      "--token",
      "--help",
    ]) {
      expect(MCP_USAGE).toContain(flag);
    }
  });
});
