/**
 * Approval through the host: without --yes, a command no --allow pattern approves is asked
 * through MCP elicitation (2026-07-28: an input_required result the client answers by retrying;
 * 2025: elicitation/create, sent by the SDK's shim), over real stdio with the SDK v2 client on
 * both revisions and the v1 client. The question shows the command, its directory and the
 * variables set; accept runs it, decline or cancel refuse it (an error that quotes the host's answer and says
 * whether a person can have seen the question), and "for
 * the rest of the session" is remembered as the CLI remembers it. Over stateless HTTP a 2026-07-28
 * client is asked as well; a 2025 one cannot be (no session to send the question on).
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import {
  CLIENT_KINDS,
  connectHttp,
  type ElicitAnswer,
  type McpTestClient,
  type ToolCallResult,
} from "./support/mcp-clients.js";
import {
  connectMcp,
  MCP_MAIN,
  startHttpServer,
  type HttpServerProcess,
} from "./support/mcp-server.js";

let workspace: string;
let mark: string;
const open: McpTestClient[] = [];
const servers: HttpServerProcess[] = [];

beforeAll(() => {
  workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "mcp-elicit-")));
  mkdirSync(path.join(workspace, "sub"));
});
afterAll(() => rmSync(workspace, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((client) => client.close()));
  await Promise.allSettled(servers.splice(0).map((server) => server.stop()));
  await untilNoneMarked(mark);
});

/** A client whose user answers every question with the next of `answers`, recording the questions. */
async function asking(
  kind: (typeof CLIENT_KINDS)[number],
  args: string[],
  answers: (ElicitAnswer & { readingMs?: number })[],
): Promise<{ client: McpTestClient; questions: string[] }> {
  mark = newMark();
  const questions: string[] = [];
  const client = await connectMcp(kind, ["--workspace", workspace, ...args], mark, {
    elicit: async ({ message }) => {
      questions.push(message);
      const answer = answers.shift();
      if (!answer) {
        throw new Error(`an unexpected question: ${message}`);
      }
      const { readingMs, ...given } = answer;
      if (readingMs !== undefined) {
        // A person reading the question before answering: the time is what the test is about.
        // eslint-disable-next-line no-restricted-syntax -- not a wait for a condition: the delay itself is the input under test
        await new Promise((resolve) => setTimeout(resolve, readingMs));
      }
      return given;
    },
  });
  open.push(client);
  return { client, questions };
}

const once: ElicitAnswer = { action: "accept", content: { decision: "once" } };
const session: ElicitAnswer = { action: "accept", content: { decision: "session" } };

/** `text` as a regular expression that matches it literally. */
function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function output(result: ToolCallResult): unknown {
  expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
  return result.structuredContent?.["output"];
}

describe.each(CLIENT_KINDS)("the %s client", (kind) => {
  test("a command is asked about with its command line, directory and variables; accepting runs it once", async () => {
    const { client, questions } = await asking(kind, [], [once, once]);
    const needle = randomUUID();
    const run = await client.callTool("exec", {
      command: `echo ${needle} $GREETING`,
      workdir: path.join(workspace, "sub"),
      env: { GREETING: "hi\u001b[2K\u202e\u200b" },
    });
    expect(output(run)).toBe(`${needle} hi\u001b[2K\u202e\u200b\n`);
    expect(questions).toHaveLength(1);
    // acp-terminal/approval's question, as the CLI shows it on a TTY.
    expect(questions[0]).toContain(`The agent wants to run: echo ${needle} $GREETING\n`);
    expect(questions[0]).toContain(`\n  cwd: ${workspace}/sub\n`);
    // Control characters are shown, not sent to the host's display.
    expect(questions[0]).toContain("\n  env: GREETING=hi\\x1b[2K\\u{202e}\\u{200b}\n");
    // Once is once: the same command is asked about again.
    expect(
      output(
        await client.callTool("exec", {
          command: `echo ${needle} $GREETING`,
          workdir: path.join(workspace, "sub"),
          env: { GREETING: "hi\u001b[2K\u202e\u200b" },
        }),
      ),
    ).toBe(`${needle} hi\u001b[2K\u202e\u200b\n`);
    expect(questions).toHaveLength(2);
  });

  test("a decline or an instant cancel refuses the command, quoting the host's answer, saying whether anyone saw it and what to do next; nothing runs", async () => {
    const { client, questions } = await asking(
      kind,
      [],
      [{ action: "decline" }, { action: "cancel" }],
    );
    const file = path.join(workspace, `declined-${randomUUID()}`);
    const declined = await client.callTool("exec", { command: `touch ${file}` });
    expect(declined.isError).toBe(true);
    const next =
      "ask the user to approve it (in a host that shows MCP elicitation questions, or through a hook that answers them, e.g. Claude Code's Elicitation hook), or to restart this server with --allow PATTERN matching it, or --yes";
    expect(declined.content[0]!.text).toMatch(
      new RegExp(
        `^Not run: touch ${file}\\. The user declined it: the host answered the approval question with \\{"action":"decline"\\} \\d+ ms after it was sent\\. Do not run it another way; if the user wants it run after all, ${escaped(next)}\\.$`,
      ),
    );
    const cancelled = await client.callTool("exec", { command: `touch ${file}` });
    expect(cancelled.isError).toBe(true);
    expect(cancelled.content[0]!.text).toMatch(
      new RegExp(
        `^Not run: touch ${file}\\. Nobody was asked: the host answered the approval question with \\{"action":"cancel"\\} \\d+ ms after it was sent, too soon for anyone to have read it, so the host did not show the question \\(headless hosts such as claude -p cancel every question unless a hook answers it\\)\\. To have it run, ${escaped(next)}\\. Do not retry it unchanged before that\\.$`,
      ),
    );
    expect(questions).toHaveLength(2);
    expect(existsSync(file)).toBe(false);
  });

  test("a cancel that comes after the question could be read says it was closed without a decision; an accept without a decision is quoted and refused", async () => {
    const { client } = await asking(
      kind,
      [],
      [
        { action: "cancel", readingMs: 1200 },
        { action: "accept", content: { decision: "always-and-forever" } },
      ],
    );
    const file = path.join(workspace, `cancelled-${randomUUID()}`);
    const closed = await client.callTool("exec", { command: `touch ${file}` });
    expect(closed.isError).toBe(true);
    expect(closed.content[0]!.text).toMatch(
      /^Not run: touch \S+\. No one approved it: the host answered the approval question with \{"action":"cancel"\} after \d+\.\d s, without a decision \(the question was closed or not shown\)\. To have it run, ask the user to approve it/,
    );
    const unclear = await client.callTool("exec", { command: `touch ${file}` });
    expect(unclear.isError).toBe(true);
    expect(unclear.content[0]!.text).toContain(
      `The host answered the approval question with {"action":"accept","content":{"decision":"always-and-forever"}}`,
    );
    expect(unclear.content[0]!.text).toContain('it takes accept with decision "once" or "session"');
    expect(existsSync(file)).toBe(false);
  });

  test("allowing for the session runs the same command in the same directory without asking again; another directory is asked about", async () => {
    const { client, questions } = await asking(kind, [], [session, once]);
    expect(output(await client.callTool("exec", { command: "pwd" }))).toBe(`${workspace}\n`);
    expect(output(await client.callTool("exec", { command: "pwd" }))).toBe(`${workspace}\n`);
    expect(questions).toHaveLength(1);
    expect(
      output(
        await client.callTool("exec", { command: "pwd", workdir: path.join(workspace, "sub") }),
      ),
    ).toBe(`${workspace}/sub\n`);
    expect(questions).toHaveLength(2);
  });

  test("what --allow approves is not asked about; a blank run that could hide the rest is shown counted", async () => {
    const { client, questions } = await asking(kind, ["--allow", "pwd"], [{ action: "decline" }]);
    expect(output(await client.callTool("exec", { command: "pwd" }))).toBe(`${workspace}\n`);
    expect(questions).toHaveLength(0);
    const hidden = await client.callTool("exec", { command: `ls${" ".repeat(600)}; touch M` });
    expect(hidden.isError).toBe(true);
    expect(questions[0]).toContain("The agent wants to run: ls⟨600 spaces⟩; touch M\n");
  });
});

describe("the question is acp-terminal/approval's: one escaping table, one limit", () => {
  test("Q1: 7,000 braille blanks are counted, a forged ⟨N spaces⟩ marker is escaped, and a 5,000-character question is asked", async () => {
    const decline: ElicitAnswer = { action: "decline" };
    const { client, questions } = await asking("v2", [], [decline, decline, decline]);
    await client.callTool("exec", { command: `ls -la${"\u2800".repeat(7000)}; touch M` });
    expect(questions[0]).toContain("The agent wants to run: ls -la⟨7000 × \\u{2800}⟩; touch M\n");
    await client.callTool("exec", { command: "ls⟨600 spaces⟩; touch M" });
    expect(questions[1]).toContain("ls\\u{27e8}600 spaces\\u{27e9}; touch M");
    // Over the 4000 the server once had, under the one limit (8000): asked, not refused.
    await client.callTool("exec", { command: `echo ${"x".repeat(5000)}` });
    expect(questions).toHaveLength(3);
    const tooLong = await client.callTool("exec", { command: `echo ${"x".repeat(9000)}` });
    expect(tooLong.content[0]!.text).toMatch(
      /too long to show whole in an approval question \(9\d{3} characters\)/,
    );
    expect(questions).toHaveLength(3);
    expect(existsSync(path.join(workspace, "M"))).toBe(false);
  });
});

describe("over Streamable HTTP", () => {
  const TOKEN = "h".repeat(32);

  async function httpAsking(
    kind: (typeof CLIENT_KINDS)[number],
  ): Promise<{ client: McpTestClient; questions: string[] }> {
    mark = newMark();
    const server = await startHttpServer(
      ["--workspace", workspace, "--http", "127.0.0.1:0", "--token", TOKEN],
      mark,
      {},
      [process.execPath, MCP_MAIN],
    );
    servers.push(server);
    const questions: string[] = [];
    const client = await connectHttp(
      kind,
      { url: server.url, token: TOKEN },
      {
        elicit: async ({ message }) => {
          questions.push(message);
          return once;
        },
      },
    );
    open.push(client);
    return { client, questions };
  }

  test("a 2026-07-28 client is asked (input_required needs no session: the retry carries the answer)", async () => {
    const { client, questions } = await httpAsking("v2-modern");
    expect(output(await client.callTool("exec", { command: "echo asked over http" }))).toBe(
      "asked over http\n",
    );
    expect(questions).toHaveLength(1);
  });

  test("a 2025 client over stateless HTTP cannot be asked (each request meets a fresh server): refused, saying so", async () => {
    for (const kind of ["v2", "v1"] as const) {
      const { client, questions } = await httpAsking(kind);
      const refused = await client.callTool("exec", { command: "echo never" });
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toContain("this client cannot be asked");
      expect(questions).toHaveLength(0);
    }
  });
});
