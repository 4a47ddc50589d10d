/**
 * The recorded adapter sessions (test/fixtures/adapters) are whole and hold what DIALECTS.md says
 * of them, so that a re-recording that changes a dialect, or a hand edit, is caught here before
 * the replay tests make sense of it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const DIR = fileURLToPath(new URL("./fixtures/adapters/", import.meta.url));

interface Entry {
  t: number;
  from?: "client" | "agent";
  msg?: {
    id?: number | string;
    method?: string;
    params?: { update?: Update };
    result?: Record<string, unknown>;
    error?: { code: number; message: string; data?: Record<string, unknown> };
  };
  eof?: boolean;
  exit?: { code: number | null; signal: string | null };
}
interface Update {
  [key: string]: unknown;
  sessionUpdate: string;
  _meta?: Record<string, unknown>;
}

function recording(name: string): Entry[] {
  return readFileSync(`${DIR}${name}.jsonl`, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Entry);
}
const updates = (entries: Entry[]): Array<Update & { t: number }> =>
  entries.flatMap((e) => (e.msg?.params?.update ? [{ ...e.msg.params.update, t: e.t }] : []));
const metaData = (entries: Entry[], key: string, terminalId: string) =>
  updates(entries)
    .map((u) => u._meta?.[key] as { terminal_id: string; data: string } | undefined)
    .filter((value) => value?.terminal_id === terminalId)
    .map((value) => value!.data);

const NAMES = readdirSync(DIR)
  .filter((file) => file.endsWith(".jsonl"))
  .map((file) => file.slice(0, -".jsonl".length));

describe.each(NAMES)("%s", (name) => {
  it("is whole: times in order, every request answered, ends with the adapter's exit, no machine paths", () => {
    const entries = recording(name);
    const times = entries.map((e) => e.t);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(entries.at(-1)?.exit).toBeDefined();
    for (const request of entries.filter((e) => e.msg?.method && e.msg.id !== undefined)) {
      const answered = entries.some(
        (e) => e.from !== request.from && e.msg?.id === request.msg!.id && !e.msg?.method,
      );
      expect(answered, `${request.from} ${request.msg!.method} #${request.msg!.id}`).toBe(true);
    }
    const text = readFileSync(`${DIR}${name}.jsonl`, "utf8");
    expect(text).not.toContain(`${homedir()}/`);
    expect(text).not.toContain("/.cache/acp-adapters");
    expect(entries.some((e) => e.from === "agent" && e.msg?.method?.startsWith("terminal/"))).toBe(
      false,
    );
  });
});

it("codex streams each chunk under the key the client chose, the first line only sometimes", () => {
  const whole = (text: string) => [text, text.slice(text.indexOf("\n") + 1)];
  for (const [name, key] of [
    ["codex-v1-terminal", "terminal_output_delta"],
    ["codex-v1-meta-output", "terminal_output"],
    ["codex-v1-meta-delta", "terminal_output_delta"],
  ] as const) {
    const entries = recording(name);
    expect(whole("step 1\nstep 2\nstep 3\né✓🚀\n"), name).toContain(
      metaData(entries, key, "call_standin_1").join(""),
    );
    expect(whole("tick 1\ntick 2\ntick 3\ntick 4\ntick 5\n"), name).toContain(
      metaData(entries, key, "call_standin_2").join(""),
    );
  }
  // The output a command writes before codex app-server reports it started is lost.
  expect(
    metaData(recording("codex-v1-meta-delta"), "terminal_output_delta", "call_standin_1")[0],
  ).toBe("step 2\n");
});

it("claude sends a command's output once at the end, under the declared key, and a late null exit for the background loop", () => {
  for (const [name, key] of [
    ["claude-v1-meta-output", "terminal_output"],
    ["claude-v1-meta-delta", "terminal_output_delta"],
  ] as const) {
    const entries = recording(name);
    expect(metaData(entries, key, "toolu_standin_steps"), name).toEqual([
      "step 1\nstep 2\nstep 3\né✓🚀",
    ]);
    const answered = entries.find((e) => e.msg?.result?.stopReason === "end_turn")!.t;
    const exits = updates(entries).filter(
      (u) =>
        (u._meta?.terminal_exit as { terminal_id?: string } | undefined)?.terminal_id ===
        "toolu_standin_ticks",
    );
    expect(
      exits.map((u) => [u.t > answered, u._meta!.terminal_exit]),
      name,
    ).toEqual([[true, { terminal_id: "toolu_standin_ticks", exit_code: null, signal: null }]]);
  }
  const plain = JSON.stringify(recording("claude-v1-terminal"));
  expect(plain).not.toContain("terminal_info");
  expect(plain).toContain("```console\\nstep 1\\nstep 2\\nstep 3\\né✓🚀\\n```");
});

it("claude v2 lists the background loop, lets it be cancelled, and streams its output after the turn", () => {
  const v2 = updates(recording("claude-v2"));
  const idle = v2.find((u) => u.sessionUpdate === "state_update" && u.stopReason === "end_turn")!;
  expect(idle.background).toEqual([{ type: "terminal", terminalId: "toolu_standin_ticks" }]);
  expect(v2).toContainEqual(
    expect.objectContaining({ terminalId: "toolu_standin_ticks", capabilities: { cancel: {} } }),
  );
  const after = v2.filter((u) => u.t > idle.t && u.terminalId === "toolu_standin_ticks");
  const text = after
    .map((u) =>
      u.sessionUpdate === "terminal_output_chunk" ? u.data : (u.output as { data?: string })?.data,
    )
    .filter((data): data is string => typeof data === "string")
    .map((data) => Buffer.from(data, "base64").toString("utf8"))
    .join("");
  expect(text).toBe("tick 1\ntick 2\ntick 3\ntick 4\ntick 5\n\n[exited with code 0]\n");
  const cancel = recording("claude-v2-cancel");
  const answer = cancel.find((e) => e.from === "agent" && e.msg?.id === 3 && !e.msg.method);
  expect(answer?.msg?.result).toEqual({});
});

it("the fatal errors and codex's auth methods are as recorded", () => {
  const claude = recording("claude-new-error").find((e) => e.msg?.error)!.msg!.error;
  expect(claude).toEqual({
    code: -32603,
    message: "Internal error",
    data: { details: "Query closed before response received" },
  });
  const codex = recording("codex-new-error");
  const methods = (codex[1]!.msg!.result!.authMethods as Array<{ id: string }>).map((m) => m.id);
  expect(methods).toEqual(["api-key", "chat-gpt"]);
  expect(codex.filter((e) => e.msg?.error).map((e) => e.msg!.error)).toEqual([
    { code: -32000, message: "Authentication required" },
    {
      code: -32603,
      message: "Internal error: CODEX_API_KEY or OPENAI_API_KEY is not set",
      data: { envVars: ["CODEX_API_KEY", "OPENAI_API_KEY"] },
    },
  ]);
});
