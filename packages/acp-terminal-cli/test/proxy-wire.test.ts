import { describe, expect, it } from "vitest";
import { PARSE_BYTES, readWireMessage } from "../src/proxy/wire-message.js";
import { idKey } from "../src/proxy/pending-requests.js";
import { MAX_FINAL_CHARS, terminalText } from "../src/proxy/terminal-text.js";

const padding = "p".repeat(PARSE_BYTES);

/** What a verdict says, without the parsed value (which only a short line carries). */
function verdict(line: string): Record<string, unknown> {
  const { value: _value, ...rest } = readWireMessage(Buffer.from(line)) as Record<string, unknown>;
  return rest;
}

describe("reading a JSON-RPC line for the proxy", () => {
  const cases: Array<[string, string]> = [
    ["a request", `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"x":PAD}}`],
    [
      "a request with a string id",
      `{"params":{"x":PAD},"method":"m","id":"a\\"b","jsonrpc":"2.0"}`,
    ],
    ["a notification", `{"jsonrpc":"2.0","method":"session/update","params":{"a":[1,{"b":PAD}]}}`],
    ["a response", `{"jsonrpc":"2.0","id":12,"result":{"content":PAD}}`],
    [
      "an error response with a null id",
      `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":PAD}}`,
    ],
    ["an id that is an object", `{"jsonrpc":"2.0","id":{"a":1},"method":"m","params":PAD}`],
    ["a method that is a number", `{"jsonrpc":"2.0","id":1,"method":5,"params":PAD}`],
    ["an id with neither result nor error", `{"jsonrpc":"2.0","id":7,"other":PAD}`],
    ["a request with a null id", `{"jsonrpc":"2.0","id":null,"method":"m","params":PAD}`],
    [
      "braces and quotes in strings",
      `{"method":"x","params":{"s":"}{][\\\\\\"","t":PAD},"jsonrpc":"2.0"}`,
    ],
  ];

  it.each(cases)("reads %s the same whether it is parsed or walked", (_name, template) => {
    const short = template.replace("PAD", `"x"`);
    const long = template.replace("PAD", `"${padding}"`);
    expect(Buffer.byteLength(long)).toBeGreaterThan(PARSE_BYTES);
    expect(verdict(long)).toEqual(verdict(short));
  });

  it("says what each kind is, with its id and method", () => {
    expect(verdict(cases[0]![1].replace("PAD", "1"))).toEqual({
      kind: "request",
      id: 3,
      method: "session/prompt",
    });
    expect(verdict(`{"jsonrpc":"2.0","id":"7","result":{}}`)).toEqual({
      kind: "response",
      id: "7",
    });
    expect(verdict("  \r")).toEqual({ kind: "empty" });
    expect(verdict("{oops").kind).toBe("invalid");
    expect(verdict(`{"method":"x","params":{"s":"${padding}`).kind).toBe("invalid");
    expect(verdict("[1]")).toMatchObject({ kind: "invalid", error: { code: -32600 } });
  });

  it('keeps the string id "1" and the number 1 apart', () => {
    expect(idKey("1")).not.toBe(idKey(1));
  });
});

describe("a terminal as tool-call text", () => {
  it("fences the screen with more backticks than it holds, then says how it ended", () => {
    expect(terminalText("a ```` b\n", { exitCode: 0, signal: null }, 10)).toBe(
      "`````text\na ```` b\n`````\nexit 0",
    );
    expect(terminalText("x", { exitCode: null, signal: "SIGTERM" }, 10)).toBe(
      "```text\nx\n```\nkilled by SIGTERM",
    );
  });

  it("shows only the newest lines while the command runs, and every line once it has ended", () => {
    const screen = ["1", "2", "3", "4", ""].join("\n");
    expect(terminalText(screen, undefined, 2)).toBe("… 2 earlier lines\n```text\n3\n4\n```");
    expect(terminalText(screen, { exitCode: 1, signal: null }, 2)).toBe(
      "```text\n1\n2\n3\n4\n```\nexit 1",
    );
    expect(terminalText("\n\n", undefined, 2)).toBe("running");
  });

  it("sends an ended terminal's newest 64 Ki characters, from a line's start, saying how many lines came before", () => {
    const screen = Array.from(
      { length: 10000 },
      (_, i) => `line ${String(i + 1).padStart(5, "0")}`,
    ).join("\n");
    const text = terminalText(screen, { exitCode: 0, signal: null }, 10);
    expect(text.length).toBeLessThanOrEqual(MAX_FINAL_CHARS + 100);
    const first = /```text\n(line \d+)/.exec(text)![1]!;
    const earlier = Number(/^… (\d+) earlier lines/.exec(text)![1]);
    expect(first).toBe(`line ${String(earlier + 1).padStart(5, "0")}`);
    expect(text.endsWith("line 10000\n```\nexit 0")).toBe(true);
  });
});
