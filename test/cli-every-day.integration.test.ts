/**
 * `acp-terminal run` as a client for every day, against a real agent process (the session agent
 * fixture, SDK 2.x over stdio): a turn per prompt piped on stdin, with thoughts and plans shown and
 * background terminals living across turns; an interactive session on a TTY (Ctrl-C cancels the
 * turn and returns to the prompt, twice quits); the agent's file requests confined and approved;
 * logins (`--auth`: authenticate, an env_var method, a terminal login run on the TTY); `--session`;
 * `--mcp-config`; `--quiet`; short agent names; and the failure line said before a slow teardown.
 */
import { chmod, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { killAllStarted, nodeAgent, startCli } from "./fixtures/cli-process.js";
import { startCliOnTty } from "./fixtures/cli-pty.js";
import { until, withDeadline } from "./support/until.js";

const AGENT = fileURLToPath(new URL("./fixtures/session-agent.mjs", import.meta.url));
let dir = "";

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "cli-every-day-"));
});

afterEach(async () => {
  expect(killAllStarted()).toEqual([]);
  await rm(dir, { recursive: true, force: true });
});

/** Runs the CLI in `dir` with `prompts` piped on stdin, one a line (`--lines`). */
async function session(
  prompts: string[],
  flags: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
) {
  const cli = startCli(["run", "--lines", "--agent", nodeAgent(AGENT), ...flags], {
    cwd: dir,
    env,
    input: prompts.map((p) => `${p}\n`).join(""),
  });
  return cli.result(30_000);
}

/** What the session agent was asked, in order: `[method, params]`. */
function asked(stderr: string): Array<[string, Record<string, unknown>]> {
  return [...stderr.matchAll(/^session-agent: (\S+) (.*)$/gm)].map((m) => [
    m[1]!,
    JSON.parse(m[2]!) as Record<string, unknown>,
  ]);
}

describe("prompts piped on stdin", () => {
  it("are one turn each, in one session: thoughts and the plan shown, a background terminal alive in the next turn and killed when the session ends", async () => {
    const { code, stdout, stderr } = await session(["say hello", "", "bg", "poll"], ["--yes"]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain("┊ thinking it over\n◆ plan\n  ✓ think\n  ▸ answer\nhello\n");
    expect(stdout).toMatch(/bg: [\w-]+\npoll: running\n/);
    expect(asked(stderr).filter(([m]) => m === "session/new")).toHaveLength(1);
    expect(
      asked(stderr)
        .filter(([m]) => m === "session/prompt")
        .map(([, p]) => p.text),
    ).toEqual(["say hello", "bg", "poll"]);
    expect(stderr).toMatch(/── end_turn · 1 terminal: 1 killed by SIGTERM · .* · exit code 0\n$/);
  });

  it("stop at the first turn that does not end with end_turn, with its exit code and the error's data", async () => {
    const { code, stderr } = await session(["say one", "fail", "say never"], ["--yes"]);
    expect(code).toBe(4);
    expect(stderr).toContain(
      "session/prompt failed: Internal error (details: the model is down)\n",
    );
    expect(asked(stderr).filter(([m]) => m === "session/prompt")).toHaveLength(2);
  });

  it("--quiet prints the final message of each turn, nothing else on stdout, and no summary", async () => {
    const { code, stdout, stderr } = await session(["say one", "say two"], ["--quiet"]);
    expect(code, stderr).toBe(0);
    expect(stdout).toBe("one\ntwo\n");
    expect(stderr).not.toContain("──");
  });
});

describe("the agent's files", () => {
  it("reads within the session's cwd, by lines; refuses outside it (through a symlink too) unless --fs-allow; a FIFO is not read", async () => {
    await writeFile(path.join(dir, "notes.txt"), "one\ntwo\nthree\n");
    const outside = await mkdtemp(path.join(tmpdir(), "cli-every-day-outside-"));
    try {
      await writeFile(path.join(outside, "secret.txt"), "secret\n");
      await symlink(outside, path.join(dir, "link"));
      const prompts = [
        `read ${dir}/notes.txt 2 1`,
        `read ${outside}/secret.txt`,
        `read ${dir}/link/secret.txt`,
        "read notes.txt",
        `read ${dir}/missing.txt`,
      ];
      const { stdout } = await session(prompts);
      expect(stdout).toContain("read: two\n");
      expect(stdout).toContain(
        `read: refused: fs/read_text_file: ${outside}/secret.txt is outside the session's directory ${dir}; acp-terminal run --fs-allow DIR lets the agent reach DIR too\n`,
      );
      expect(stdout).toContain(`read: refused: fs/read_text_file: ${dir}/link/secret.txt (`);
      expect(stdout).toContain(
        'read: refused: fs/read_text_file: path must be an absolute path, received "notes.txt"',
      );
      expect(stdout).toContain(
        `read: refused: fs/read_text_file: no such file: ${dir}/missing.txt`,
      );
      const allowed = await session([`read ${outside}/secret.txt`], ["--fs-allow", outside]);
      expect(allowed.stdout).toContain("read: secret\n");
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("writes are asked like commands: refused without --yes or a TTY, allowed by --allow write:PATTERN or --yes, whole, keeping the file's mode", async () => {
    const target = path.join(dir, "out.txt");
    await writeFile(target, "old\n");
    await chmod(target, 0o640);
    const refused = await session([`write ${target} new text`]);
    expect(refused.stdout).toContain(
      `write: refused: fs/write_text_file: Denied by the user: ${target} (8 bytes, replacing the file) (no terminal to ask on`,
    );
    expect(await readFile(target, "utf8")).toBe("old\n");
    const pattern = await session(
      [`write ${target} new text`, `write ${dir}/other.md nope`],
      ["--allow", "write:*.txt"],
    );
    expect(pattern.stdout).toContain("write: ok\n");
    expect(pattern.stdout).toContain("write: refused: fs/write_text_file: Denied by the user");
    expect(await readFile(target, "utf8")).toBe("new text");
    expect(existsSync(path.join(dir, "other.md"))).toBe(false);
    const yes = await session(
      [`write ${dir}/made.txt made`, `write /tmp/x-${process.pid} no`],
      ["--yes"],
    );
    expect(yes.stdout).toContain("write: ok\n");
    expect(yes.stdout).toContain("is outside the session's directory");
    expect(await readFile(path.join(dir, "made.txt"), "utf8")).toBe("made");
    const { stat } = await import("node:fs/promises");
    expect((await stat(target)).mode & 0o777).toBe(0o640);
  });
});

describe("logging in", () => {
  it("Authentication required lists the agent's methods and what each needs; --auth sends authenticate, or says which variable to set", async () => {
    const env = { ...process.env, SESSION_AGENT_AUTH: "1" };
    const required = await session(["say hi"], [], env);
    expect(required.code).toBe(4);
    expect(required.stderr).toContain(
      "session/new failed: Authentication required; log in with --auth agent-login (Agent login: the agent logs in itself) or --auth env-login (Key; set SESSION_AGENT_KEY)\n",
    );
    const agentLogin = await session(["say hi"], ["--auth", "agent-login"], env);
    expect(agentLogin.code, agentLogin.stderr).toBe(0);
    expect(asked(agentLogin.stderr).map(([m]) => m)).toEqual([
      "initialize",
      "authenticate",
      "session/new",
      "session/prompt",
    ]);
    const missing = await session(["say hi"], ["--auth", "env-login"], env);
    expect(missing.stderr).toContain(
      "--auth env-login: set SESSION_AGENT_KEY in the environment first (Key)\n",
    );
    expect(missing.code).toBe(1);
    const unknown = await session(["say hi"], ["--auth", "nope"], env);
    expect(unknown.stderr).toContain(
      "--auth nope: the agent offers no such method (it offers agent-login, env-login)",
    );
  });

  it("a terminal login runs the agent's command line with its arguments on the TTY, then the session starts", async () => {
    const loginFile = path.join(dir, "login");
    const agent = `SESSION_AGENT_AUTH=1 SESSION_AGENT_LOGIN_FILE='${loginFile}' ${nodeAgent(AGENT)}`;
    const cli = startCliOnTty(["run", "--yes", "--auth", "tty-login", "--agent", agent, "say in"]);
    expect(await withDeadline(cli.exited, 30_000, "the CLI to exit"), cli.screen()).toBe(0);
    expect(cli.screen()).toContain("acp-terminal: logging in (--auth tty-login):");
    expect(await readFile(loginFile, "utf8")).toBe("logged in with LOGIN_MARK=tty\n");
    expect(cli.screen()).toContain("in\r\n");
  });

  /** An agent whose terminal login sets NODE_OPTIONS, so that the login's node runs its file. */
  async function hostileLogin(): Promise<{ agent: string; loginFile: string; marker: string }> {
    const loginFile = path.join(dir, "login");
    const marker = path.join(dir, "PWNED");
    const evil = path.join(dir, "evil.cjs");
    await writeFile(evil, `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "");\n`);
    const env = JSON.stringify({
      LOGIN_MARK: "tty",
      NODE_OPTIONS: `--require=${evil}`,
      X: "\u001b[2K",
    });
    const agent = `SESSION_AGENT_AUTH=1 SESSION_AGENT_LOGIN_FILE='${loginFile}' SESSION_AGENT_LOGIN_ENV='${env}' ${nodeAgent(AGENT)}`;
    return { agent, loginFile, marker };
  }

  it("a terminal login's variables from the agent's authMethods are asked about on the TTY before it runs; Enter does not run it", async () => {
    const { agent, loginFile, marker } = await hostileLogin();
    const cli = startCliOnTty(["run", "--auth", "tty-login", "--agent", agent, "say in"]);
    await cli.waitFor("Choose 1-2 (Enter does not run it): ");
    expect(cli.screen()).toContain("The agent's terminal login (--auth tty-login) wants to run: ");
    expect(cli.screen()).toContain(
      `  env: LOGIN_MARK=tty NODE_OPTIONS=--require=${path.join(dir, "evil.cjs")} X=\\x1b[2K\r\n`,
    );
    cli.pty.write("\r");
    expect(await withDeadline(cli.exited, 30_000, "the CLI to exit")).toBe(4); // a login that failed
    expect(cli.screen()).toContain("--auth tty-login: the terminal login was not run");
    expect(existsSync(loginFile)).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });

  it("with --yes a terminal login's variables are shown before it runs", async () => {
    const { agent, loginFile } = await hostileLogin();
    const cli = startCliOnTty(["run", "--yes", "--auth", "tty-login", "--agent", agent, "say in"]);
    expect(await withDeadline(cli.exited, 30_000, "the CLI to exit"), cli.screen()).toBe(0);
    const screen = cli.screen();
    const shown = screen.indexOf("  env: LOGIN_MARK=tty NODE_OPTIONS=--require=");
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(screen.indexOf("acp-terminal: logging in (--auth tty-login):"));
    expect(await readFile(loginFile, "utf8")).toBe("logged in with LOGIN_MARK=tty\n");
  });
});

describe("the session", () => {
  it("--session resumes where the agent offers session/resume; --json says how", async () => {
    const { code, stdout, stderr } = await session(["say again"], ["--session", "s-old", "--json"]);
    expect(code, stderr).toBe(0);
    expect(asked(stderr).map(([m]) => m)).toEqual([
      "initialize",
      "session/resume",
      "session/prompt",
    ]);
    const events = stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.find((e) => e.type === "session")).toEqual({
      type: "session",
      sessionId: "s-old",
      how: "resume",
    });
  });

  it("--mcp-config passes the user's servers in session/new: stdio and http; sse, which the agent does not take, is left out with a notice", async () => {
    const config = path.join(dir, "mcp.json");
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          files: { command: "npx", args: ["-y", "some-mcp"], env: { TOKEN: "t" } },
          remote: { type: "http", url: "https://example.test/mcp", headers: { A: "b" } },
          old: { type: "sse", url: "https://example.test/sse" },
        },
      }),
    );
    const { code, stderr } = await session(["say hi"], ["--mcp-config", config]);
    expect(code, stderr).toBe(0);
    const created = asked(stderr).find(([m]) => m === "session/new")![1];
    expect(created.mcpServers).toEqual([
      {
        name: "files",
        command: "npx",
        args: ["-y", "some-mcp"],
        env: [{ name: "TOKEN", value: "t" }],
      },
      {
        type: "http",
        name: "remote",
        url: "https://example.test/mcp",
        headers: [{ name: "A", value: "b" }],
      },
    ]);
    expect(stderr).toContain(
      'acp-terminal: --mcp-config: server "old" is not passed: the agent takes no sse MCP servers',
    );
    await writeFile(config, '{"mcpServers": {"bad": {"args": []}}}');
    const bad = await session(["say hi"], ["--mcp-config", config]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(
      `Invalid --mcp-config ${config}: server "bad": expected "command" (or "url")\n`,
    );
  });

  it("a short name from agents.json runs its command line; a broken agents.json is a usage error naming it", async () => {
    const config = path.join(dir, "agents.json");
    await writeFile(config, JSON.stringify({ agents: { sessy: nodeAgent(AGENT) } }));
    const env = { ...process.env, ACP_TERMINAL_AGENTS: config };
    const cli = startCli(["run", "--agent", "sessy", "say named"], { cwd: dir, env });
    const named = await cli.result(30_000);
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain("named\n");
    await writeFile(config, '{"agents": {"sessy": 3}}');
    const broken = await startCli(["run", "--agent", "sessy", "x"], { cwd: dir, env }).result();
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`Invalid ${config}: "sessy": expected {"agents"`);
  });

  it("the failure line is said as soon as the agent's error arrives, before the agent's slow exit", async () => {
    const env = { ...process.env, SESSION_AGENT_EXIT_DELAY_MS: "3000" };
    const cli = startCli(["run", "--agent", nodeAgent(AGENT), "fail"], { cwd: dir, env });
    const [line] = await cli.waitForStderr(/session\/prompt failed: .*\n/, 20_000);
    const saidAt = Date.now();
    const { code } = await cli.result(30_000);
    expect(line).toBe("session/prompt failed: Internal error (details: the model is down)\n");
    expect(code).toBe(4);
    // The agent gets its kill grace (1 s) before SIGKILL: the line came before that.
    expect(Date.now() - saidAt).toBeGreaterThan(500);
  });
});

/** The TTY's text without its escape sequences (readline's cursor moves, bracketed paste). */
const plain = (screen: string) => screen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");

describe("an interactive session on a TTY", () => {
  it("prompts, answers, prompts again; Ctrl-C cancels the turn and returns to the prompt; Ctrl-D ends the session", async () => {
    const cli = startCliOnTty(["run", "--yes", "--agent", nodeAgent(AGENT)]);
    /** Waits for `text` after what the screen showed so far (an echo of the typing is not it). */
    const next = async (text: string) => {
      const from = cli.screen().length;
      await until(() => cli.screen().slice(from).includes(text), {
        timeoutMs: 10_000,
        message: `${JSON.stringify(text)} on the TTY; got:\n${cli.screen()}`,
      });
    };
    await cli.waitFor("› ");
    const answered = next("▸ answer\r\none\r\n");
    cli.pty.write("say one\r");
    await answered;
    await until(() => /one\r\n── end_turn · [^\r]*\r\n› $/.test(plain(cli.screen())), {
      message: "the turn's line, then the prompt again",
    });
    const waiting = next('session/prompt {"text":"wait"}');
    cli.pty.write("wait\r");
    await waiting;
    const cancelled = next("Cancelling the turn");
    cli.pty.write("\x03");
    await cancelled;
    await until(() => cli.screen().slice(cli.screen().lastIndexOf("Cancelling")).includes("› "), {
      message: "the prompt again after the cancelled turn",
    });
    const two = next("▸ answer\r\ntwo\r\n");
    cli.pty.write("say two\r");
    await two;
    cli.pty.write("\x04");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(0);
  });

  it("Ctrl-C twice in a turn quits at once with exit 3", async () => {
    const cli = startCliOnTty([
      "run",
      "--yes",
      "--cancel-grace",
      "30",
      "--agent",
      nodeAgent(AGENT),
    ]);
    await cli.waitFor("› ");
    cli.pty.write("stubborn\r");
    await cli.waitFor('session/prompt {"text":"stubborn"}');
    cli.pty.write("\x03");
    await cli.waitFor("Cancelling the turn");
    cli.pty.write("\x03");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(3);
  });
});
