/**
 * The interactive session on a real TTY (node-pty), against a real agent process (the session
 * agent fixture): line editing and the history typed before with this agent (Node's readline),
 * Ctrl-C on a typed line, a prompt of many lines (a bracketed paste, a line ending in `\`), lines
 * typed during a turn queued and sent next, or taken back, `--timeout` bounding a turn and not
 * the time at the prompt, and a question answered by the line typed after it.
 */
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { killAllStarted, nodeAgent, track } from "./fixtures/cli-process.js";
import { startCliOnTty, type CliOnTty } from "./fixtures/cli-pty.js";
import { until, withDeadline } from "./support/until.js";

const AGENT = fileURLToPath(new URL("./fixtures/session-agent.mjs", import.meta.url));
let dir = "";
let env: NodeJS.ProcessEnv = {};

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "cli-tty-session-"));
  env = { ...process.env, XDG_STATE_HOME: path.join(dir, "state") };
});

afterEach(async () => {
  expect(killAllStarted()).toEqual([]);
  await rm(dir, { recursive: true, force: true });
});

/** The TTY's text without escape sequences (readline's cursor moves, bracketed paste). */
const plain = (text: string) => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");

function session(flags: string[] = []) {
  const cli = startCliOnTty(["run", ...flags, "--agent", nodeAgent(AGENT)], { env, cwd: dir });
  track(cli.pty.pid);
  return cli;
}

/** The prompts the agent was sent, in order. */
function sent(cli: CliOnTty): string[] {
  return [...plain(cli.screen()).matchAll(/session-agent: session\/prompt (\{.*?\})\r\n/g)].map(
    (m) => (JSON.parse(m[1]!) as { text: string }).text,
  );
}

/**
 * Waits until `turns` turns have ended (each says so on a line of its own) and the prompt `› ` is
 * shown after the last one (the agent's own stderr lines may come after it).
 */
async function prompted(cli: CliOnTty, turns: number): Promise<void> {
  await until(
    () => {
      const shown = plain(cli.screen());
      const ends = [...shown.matchAll(/^── \w+ · .*$/gm)];
      const after = ends.length === 0 ? shown : shown.slice(ends.at(-1)!.index);
      return ends.length >= turns && after.includes("\n› ");
    },
    {
      timeoutMs: 10_000,
      message: `${turns} turns ended and › again; got:\n${plain(cli.screen())}`,
    },
  );
}

async function screenShows(cli: CliOnTty, text: string | RegExp, from = 0): Promise<void> {
  await until(
    () => {
      const shown = plain(cli.screen()).slice(from);
      return typeof text === "string" ? shown.includes(text) : text.test(shown);
    },
    { timeoutMs: 10_000, message: `${String(text)} on the TTY` },
  );
}

describe("the interactive session", () => {
  it("edits the line, recalls what was typed with Up, and keeps the history per agent for the next session", async () => {
    const first = session(["--agent-stderr"]);
    await prompted(first, 0);
    first.pty.write("say one\r");
    await prompted(first, 1);
    first.pty.write("\x1b[A"); // Up: "say one"
    first.pty.write("\x7f\x7f\x7ftwo\r"); // Backspace ×3, then "two"
    await prompted(first, 2);
    expect(sent(first)).toEqual(["say one", "say two"]);
    expect(plain(first.screen())).not.toContain("^[[A");
    first.pty.write("\x04");
    expect(await withDeadline(first.exited, 10_000, "the CLI to exit")).toBe(0);
    const saved = await readFile(
      path.join(dir, "state", "acp-terminal", "history", "session-agent"),
      "utf8",
    );
    expect(saved).toBe('"say one"\n"say two"\n');

    const second = session(["--agent-stderr"]);
    await prompted(second, 0);
    second.pty.write("\x1b[A\r");
    await prompted(second, 1);
    expect(sent(second)).toEqual(["say two"]);
    second.pty.write("\x04");
    expect(await withDeadline(second.exited, 10_000, "the CLI to exit")).toBe(0);
  });

  it("Ctrl-C on a typed line clears it and the session goes on; on an empty line it ends the session", async () => {
    const cli = session(["--agent-stderr"]);
    await prompted(cli, 0);
    cli.pty.write("say junk");
    // The agent's stderr may come between the prompt and the echo.
    await screenShows(cli, "say junk");
    cli.pty.write("\x03");
    cli.pty.write("say after\r");
    await prompted(cli, 1);
    expect(sent(cli)).toEqual(["say after"]);
    cli.pty.write("\x03");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(0);
  });

  it("a bracketed paste of many lines, and lines ending in a backslash, are one prompt", async () => {
    const cli = session(["--agent-stderr"]);
    await prompted(cli, 0);
    cli.pty.write("\x1b[200~say Review this diff:\r+added\r-removed\x1b[201~");
    cli.pty.write("\r");
    await prompted(cli, 1);
    cli.pty.write("say first\\\r");
    await screenShows(cli, "… ");
    cli.pty.write("second\r");
    await prompted(cli, 2);
    expect(sent(cli)).toEqual(["say Review this diff:\n+added\n-removed", "say first\nsecond"]);
    cli.pty.write("\x04");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(0);
  });

  it("a line typed during a turn is queued, said so, and sent when the turn ends; Up takes a queued line back and Ctrl-C then clears it", async () => {
    const cli = session(["--agent-stderr"]);
    const flag = path.join(dir, "flag");
    await prompted(cli, 0);
    cli.pty.write(`until ${flag}\r`);
    await screenShows(cli, `session/prompt {"text":"until ${flag}"}`);
    let from = plain(cli.screen()).length;
    cli.pty.write("say next\r");
    await screenShows(cli, "⧗ queued: say next", from);
    await writeFile(flag, "");
    await prompted(cli, 2);
    expect(sent(cli)).toEqual([`until ${flag}`, "say next"]);
    expect(plain(cli.screen())).toContain("› say next   (queued)");

    const second = `${flag}-2`;
    cli.pty.write(`until ${second}\r`);
    await screenShows(cli, `session/prompt {"text":"until ${second}"}`);
    from = plain(cli.screen()).length;
    cli.pty.write("say never\r");
    await screenShows(cli, "⧗ queued: say never", from);
    cli.pty.write("\x1b[A"); // back to the line being typed
    await screenShows(cli, "say never", plain(cli.screen()).length - 40);
    cli.pty.write("\x03"); // clears it: nothing queued any more
    cli.pty.write("\x03"); // an empty line: cancels the turn
    await screenShows(cli, "Cancelling the turn", from);
    await prompted(cli, 3);
    expect(sent(cli)).toEqual([`until ${flag}`, "say next", `until ${second}`]);
    cli.pty.write("\x04");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(3);
    expect(existsSync(second)).toBe(false);
  });

  it("a queued line is not sent after a cancelled turn: it goes to the history", async () => {
    const cli = session(["--agent-stderr"]);
    await prompted(cli, 0);
    cli.pty.write("wait\r");
    await screenShows(cli, 'session/prompt {"text":"wait"}');
    const from = plain(cli.screen()).length;
    cli.pty.write("say later\r");
    await screenShows(cli, "⧗ queued: say later", from);
    cli.pty.write("\x03");
    await screenShows(
      cli,
      "1 queued line not sent after the cancelled turn (Up at the prompt finds it)",
      from,
    );
    await prompted(cli, 1);
    cli.pty.write("\x1b[A\r");
    await prompted(cli, 2);
    expect(sent(cli)).toEqual(["wait", "say later"]);
    cli.pty.write("\x04");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(0);
  });

  it("--timeout bounds each turn, not the time spent at the prompt", async () => {
    const cli = session(["--agent-stderr", "--timeout", "1"]);
    await prompted(cli, 0);
    const promptedAt = Date.now();
    // The subject is elapsed time: idle at the prompt for longer than --timeout.
    await until(() => Date.now() - promptedAt > 1500, {
      timeoutMs: 5_000,
      intervalMs: 100,
      message: "1.5 s at the prompt",
    });
    cli.pty.write("say still here\r");
    await prompted(cli, 1);
    cli.pty.write("wait\r");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(5);
    expect(plain(cli.screen())).toContain("Timed out after 1 s (--timeout), during the turn");
  });

  it("during a turn, a line typed before a question is queued, and the line typed after the question answers it", async () => {
    const cli = session(["--agent-stderr"]);
    const flag = path.join(dir, "flag");
    const notes = path.join(dir, "notes.txt");
    await prompted(cli, 0);
    cli.pty.write(`until ${flag} write ${notes} hello\r`);
    await screenShows(cli, `session/prompt {"text":"until ${flag} write`);
    const from = plain(cli.screen()).length;
    cli.pty.write("say after the write\r");
    await screenShows(cli, "⧗ queued: say after the write", from);
    await writeFile(flag, "");
    await screenShows(cli, "Choose 1-3 (Enter denies): ", from);
    expect(plain(cli.screen()).slice(from)).not.toContain("typed before this question ignored");
    cli.pty.write("1\r");
    await prompted(cli, 2);
    expect(plain(cli.screen())).toContain("write: ok");
    expect(await readFile(notes, "utf8")).toBe("hello");
    expect(sent(cli).at(-1)).toBe("say after the write");
    cli.pty.write("\x04");
    expect(await withDeadline(cli.exited, 10_000, "the CLI to exit")).toBe(0);
  });
});
