/**
 * What the every-day client's parts hold and refuse, attacked as a hostile agent or a careless
 * user would: the agent's file requests (FIFOs, NUL bytes, sizes at and past their caps, lines
 * past the read cap), `_meta` terminal reports (wrong types, invented ids, each key's meaning per
 * adapter), prompts piped on stdin (a line past its cap), MCP configs and short names.
 */
import { execFileSync } from "node:child_process";
import { lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { createApprovalPolicy } from "acp-terminal";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { authMethodsOf } from "../src/agent/auth-methods.js";
import { pinnedAgentLines, resolveAgent } from "../src/agent/known-agents.js";
import { ClientFiles, MAX_READ_BYTES, MAX_WRITE_BYTES } from "../src/conversation/client-files.js";
import { readMcpConfig } from "../src/conversation/mcp-config.js";
import { MAX_PROMPT_CHARS, PipedPrompts } from "../src/conversation/prompts.js";
import { readChunkLine } from "../src/readers/chunk-line.js";
import { MetaLane } from "../src/readers/v1-meta-lane.js";
import { decodeBase64 } from "../src/readers/wire-bytes.js";
import { MetaTerminals, replacesOnTerminalOutput } from "../src/readers/v1-meta-terminals.js";
import type { AgentTerminal } from "../src/view/agent-terminal.js";
import type { Renderer } from "../src/view/renderer.js";

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "cli-bounds-"));
});
const opened: ClientFiles[] = [];
afterEach(async () => {
  opened.splice(0).forEach((files) => files.close());
  await rm(dir, { recursive: true, force: true });
});

const files = (allowAll = true) => {
  const made = new ClientFiles({
    cwd: dir,
    allowed: [],
    policy: createApprovalPolicy({ allowAll }),
  });
  opened.push(made);
  return made;
};

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => "ok",
    (error: { code: number; message: string }) => `${error.code} ${error.message}`,
  );

describe("the agent's file requests", () => {
  it("never read a FIFO (it would never end), a directory, or a file with NUL bytes", async () => {
    execFileSync("mkfifo", [path.join(dir, "fifo")]);
    await writeFile(path.join(dir, "bin"), Buffer.from([0x61, 0, 0x62]));
    const fs = files();
    expect(await failure(fs.read({ sessionId: "s", path: path.join(dir, "fifo") }))).toBe(
      `-32603 fs/read_text_file: ${dir}/fifo is not a regular file`,
    );
    expect(await failure(fs.read({ sessionId: "s", path: dir }))).toBe(
      `-32603 fs/read_text_file: ${dir} is not a regular file`,
    );
    expect(await failure(fs.read({ sessionId: "s", path: path.join(dir, "bin") }))).toBe(
      `-32603 fs/read_text_file: ${dir}/bin is not a text file (it holds NUL bytes)`,
    );
  });

  it("answer at most MAX_READ_BYTES (N passes, N+1 fails saying to read in parts), and a range of a bigger file by line and limit", async () => {
    const big = path.join(dir, "big.txt");
    const line = `${"x".repeat(1023)}\n`;
    await writeFile(big, line.repeat(MAX_READ_BYTES / 1024));
    const fs = files();
    expect((await fs.read({ sessionId: "s", path: big })).content.length).toBe(MAX_READ_BYTES);
    await writeFile(big, `${line.repeat(MAX_READ_BYTES / 1024)}y`);
    expect(await failure(fs.read({ sessionId: "s", path: big }))).toBe(
      `-32603 fs/read_text_file: the text asked for is more than ${MAX_READ_BYTES} bytes: ${big}; read it in parts with line and limit`,
    );
    expect(await fs.read({ sessionId: "s", path: big, line: 4097, limit: 1 })).toEqual({
      content: "y",
    });
    expect(await fs.read({ sessionId: "s", path: big, line: 2, limit: 0 })).toEqual({
      content: "",
    });
    expect(await failure(fs.read({ sessionId: "s", path: big, line: 0 }))).toMatch(
      /^-32602 fs\/read_text_file: line must be a whole number from 1/,
    );
  });

  it("write at most MAX_WRITE_BYTES, whole or not at all, never through a directory that does not exist or onto a FIFO", async () => {
    const fs = files();
    const target = path.join(dir, "w.txt");
    expect(
      await failure(
        fs.write({ sessionId: "s", path: target, content: "é".repeat(MAX_WRITE_BYTES / 2) }),
      ),
    ).toBe("ok");
    expect((await readFile(target)).byteLength).toBe(MAX_WRITE_BYTES);
    expect(
      await failure(
        fs.write({ sessionId: "s", path: target, content: `${"é".repeat(MAX_WRITE_BYTES / 2)}x` }),
      ),
    ).toBe(
      `-32602 fs/write_text_file: ${MAX_WRITE_BYTES + 1} bytes, more than the ${MAX_WRITE_BYTES} a write may hold: ${target}`,
    );
    expect((await readFile(target)).byteLength).toBe(MAX_WRITE_BYTES);
    expect(
      await failure(
        fs.write({ sessionId: "s", path: path.join(dir, "no/such/file"), content: "" }),
      ),
    ).toMatch(
      new RegExp(`^-32002 fs/write_text_file: the directory ${dir}/no/such does not exist`),
    );
    execFileSync("mkfifo", [path.join(dir, "fifo")]);
    expect(
      await failure(fs.write({ sessionId: "s", path: path.join(dir, "fifo"), content: "x" })),
    ).toBe(`-32603 fs/write_text_file: ${dir}/fifo is not a regular file`);
  });

  it("a denied write changes nothing and says what was denied", async () => {
    const target = path.join(dir, "keep.txt");
    await writeFile(target, "keep");
    expect(
      await failure(files(false).write({ sessionId: "s", path: target, content: "lost" })),
    ).toBe(
      `-32603 fs/write_text_file: Denied by the user: ${target} (4 bytes, replacing the file) (not approved: no allow pattern matches and there is no one to ask)`,
    );
    expect(await readFile(target, "utf8")).toBe("keep");
  });

  it("reach a path as the kernel would, a name at a time: symlinks in and out, `..` after a symlink, loops, long paths", async () => {
    const outside = await mkdtemp(path.join(tmpdir(), "cli-bounds-out-"));
    try {
      await mkdir(path.join(dir, "sub"));
      await mkdir(path.join(outside, "deep"));
      await writeFile(path.join(dir, "sub", "file.txt"), "in sub\n");
      await writeFile(path.join(dir, "file2.txt"), "at the top\n");
      await writeFile(path.join(outside, "file2.txt"), "OUTSIDE\n");
      await symlink("sub/file.txt", path.join(dir, "in"));
      await symlink(path.join(outside, "deep"), path.join(dir, "out"));
      await symlink("b", path.join(dir, "a"));
      await symlink("a", path.join(dir, "b"));
      await symlink("new.txt", path.join(dir, "dangling"));
      const client = files();
      const read = (file: string) =>
        client.read({ sessionId: "s", path: file }).then(
          ({ content }) => content,
          (error: { code: number; message: string }) => `${error.code} ${error.message}`,
        );
      expect(await read(path.join(dir, "in"))).toBe("in sub\n");
      expect(await read(`${dir}/sub/../file2.txt`)).toBe("at the top\n");
      // `..` after a symlink is the parent of where it points, as the kernel has it: outside.
      expect(await read(`${dir}/out/../file2.txt`)).toBe(
        `-32603 fs/read_text_file: ${dir}/out/../file2.txt (${outside}/file2.txt) is outside the session's directory ${dir}; acp-terminal run --fs-allow DIR lets the agent reach DIR too`,
      );
      expect(await read(path.join(dir, "a", "x"))).toMatch(
        /^-32603 fs\/read_text_file: cannot reach .*\/a\/x: .*: too many symlinks$/,
      );
      expect(await read(`${dir}/${"x/".repeat(2100)}y`)).toBe(
        "-32602 fs/read_text_file: path is longer than 4096 bytes",
      );
      await client.write({ sessionId: "s", path: path.join(dir, "in"), content: "rewritten\n" });
      expect(await readFile(path.join(dir, "sub", "file.txt"), "utf8")).toBe("rewritten\n");
      expect((await lstat(path.join(dir, "in"))).isSymbolicLink()).toBe(true);
      await client.write({ sessionId: "s", path: path.join(dir, "dangling"), content: "new\n" });
      expect(await readFile(path.join(dir, "new.txt"), "utf8")).toBe("new\n");
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

/** A renderer that records the agent terminals' events. */
function recorder() {
  const events: string[] = [];
  const terminals = new Map<string, AgentTerminal>();
  const view = new Proxy({} as Renderer, {
    get: (_, name: string) => (first: unknown, second: unknown) => {
      if (name.startsWith("agentTerminal")) {
        const terminal = first as AgentTerminal;
        terminals.set(terminal.terminalId, terminal);
        events.push(`${name} ${terminal.terminalId} ${terminal.command ?? ""}`.trim());
      } else if (name === "terminalExited") {
        events.push(`exit ${String(first)} ${JSON.stringify(second)}`);
      } else if (name === "notice") {
        events.push(`notice ${String(first)}`);
      }
    },
  });
  return { view, events, text: (id: string) => terminals.get(id)?.text().trimEnd() };
}

describe("_meta terminal reports", () => {
  const limits = { maxTerminals: 2, maxTotalTerminals: 3 };

  it("terminal_output replaces for claude-agent-acp and appends for codex-acp and Zed's convention; terminal_output_delta always appends", () => {
    expect(replacesOnTerminalOutput("@agentclientprotocol/claude-agent-acp")).toBe(true);
    expect(replacesOnTerminalOutput("@zed-industries/claude-code-acp")).toBe(true);
    expect(replacesOnTerminalOutput("@agentclientprotocol/codex-acp")).toBe(false);
    expect(replacesOnTerminalOutput(undefined)).toBe(false);
    for (const [replace, expected] of [
      [true, "b"],
      [false, "a\nb"],
    ] as const) {
      const { view, text } = recorder();
      const meta = new MetaTerminals(view, limits, replace);
      meta.read({ toolCallId: "c", _meta: { terminal_info: { terminal_id: "t" } } });
      meta.read({ toolCallId: "c", _meta: { terminal_output: { terminal_id: "t", data: "a\n" } } });
      meta.read({ toolCallId: "c", _meta: { terminal_output: { terminal_id: "t", data: "b" } } });
      expect(text("t")).toBe(expected);
      meta.read({
        toolCallId: "c",
        _meta: { terminal_output_delta: { terminal_id: "t", data: "+" } },
      });
      expect(text("t")).toBe(`${expected}+`);
    }
  });

  it("a command reported later names the terminal; an exit is taken once; wrong types and invented fields are passed over; past the limits, terminals are ignored with one notice", () => {
    const { view, events } = recorder();
    const meta = new MetaTerminals(view, limits, false);
    meta.read({ toolCallId: "c", _meta: { terminal_info: { terminal_id: "t1" } } });
    meta.read({ toolCallId: "c", rawInput: { command: ["bash", "-lc", "ls"] } });
    meta.read({
      toolCallId: "c",
      _meta: { terminal_exit: { terminal_id: "t1", exit_code: 2, signal: null } },
    });
    meta.read({
      toolCallId: "c",
      _meta: { terminal_exit: { terminal_id: "t1", exit_code: 0, signal: null } },
    });
    for (const hostile of [
      null,
      "x",
      { terminal_info: { terminal_id: 5 } },
      { terminal_output_delta: { terminal_id: "t9", data: 7 } },
      { terminal_output: { data: "no id" } },
      { terminal_exit: { terminal_id: "nope", exit_code: "zero" } },
      { terminal_info: { terminal_id: "x".repeat(300) } },
    ]) {
      meta.read({ toolCallId: "h", _meta: hostile });
    }
    for (const id of ["a", "b", "c", "d"]) {
      meta.read({ toolCallId: id, _meta: { terminal_info: { terminal_id: id } } });
    }
    expect(events).toEqual([
      "agentTerminalCreated t1",
      "agentTerminalChanged t1 bash -lc ls",
      'exit t1 {"exitCode":2,"signal":null}',
      "agentTerminalCreated nope",
      'exit nope {"exitCode":null,"signal":null}',
      "agentTerminalCreated a",
      expect.stringMatching(/^notice acp-terminal: the agent has more terminals than shown/),
    ]);
    expect(meta.runningIds()).toEqual(["a"]);
  });
});

describe("prompts on stdin", () => {
  it("a line of MAX_PROMPT_CHARS is a prompt; one longer is an error that says nothing is cut", async () => {
    const input = new PassThrough();
    const prompts = new PipedPrompts(input);
    input.write(`${"p".repeat(MAX_PROMPT_CHARS)}\n\n  \n`);
    input.write(`${"q".repeat(MAX_PROMPT_CHARS + 1)}\nlater\n`);
    input.end();
    const signal = new AbortController().signal;
    expect((await prompts.next(signal))?.length).toBe(MAX_PROMPT_CHARS);
    await expect(prompts.next(signal)).rejects.toThrow(
      `A prompt line on stdin is longer than ${MAX_PROMPT_CHARS} characters; nothing of a prompt is cut`,
    );
  });
});

describe("what the user configures", () => {
  it("--mcp-config reads MCP hosts' shapes and names the bad entry", async () => {
    const file = path.join(dir, "mcp.json");
    await writeFile(
      file,
      JSON.stringify({
        servers: {
          a: { type: "stdio", command: "x" },
          b: { url: "http://h/mcp" },
          c: { type: "streamable-http", url: "http://h/s" },
        },
      }),
    );
    expect(readMcpConfig(file)).toEqual([
      { type: "stdio", name: "a", command: "x", args: [], env: [] },
      { type: "http", name: "b", url: "http://h/mcp", headers: [] },
      { type: "http", name: "c", url: "http://h/s", headers: [] },
    ]);
    await writeFile(file, JSON.stringify({ mcpServers: { a: { command: "x", env: { K: 1 } } } }));
    expect(readMcpConfig(file)).toEqual({
      error: `Invalid --mcp-config ${file}: server "a": expected "env" as {"NAME": "value"}`,
    });
    await writeFile(file, "x".repeat(1024 * 1024 + 1));
    expect(readMcpConfig(file)).toEqual({
      error: `Invalid --mcp-config ${file}: 1048577 bytes, more than 1048576`,
    });
  });

  it("a known short name becomes its launch command; agents.json overrides it; a command line or a name like constructor stays as given", async () => {
    const env = { ACP_TERMINAL_AGENTS: path.join(dir, "none.json") };
    expect(resolveAgent("claude", env)).toEqual({
      commandLine: "npx -y @agentclientprotocol/claude-agent-acp@0.101.0",
      name: "claude",
      from: "built-in",
      pinned: {
        package: "@agentclientprotocol/claude-agent-acp",
        version: "0.101.0",
        nodeMajor: 22,
      },
    });
    expect(resolveAgent("constructor", env)).toEqual({ commandLine: "constructor" });
    expect(resolveAgent("./claude", env)).toEqual({ commandLine: "./claude" });
    await writeFile(
      env.ACP_TERMINAL_AGENTS,
      JSON.stringify({ agents: { claude: "my-claude --acp" } }),
    );
    expect(resolveAgent("claude", env)).toMatchObject({ commandLine: "my-claude --acp" });
  });

  it("the tested agents run their tested versions, said at start, with a line when the running Node is older than the package declares", () => {
    const env = { ACP_TERMINAL_AGENTS: path.join(dir, "none.json") };
    const pinnedOf = (name: string) => {
      const found = resolveAgent(name, env);
      return "pinned" in found ? found : undefined;
    };
    expect(pinnedOf("codex")?.commandLine).toBe("npx -y @agentclientprotocol/codex-acp@2.6.0");
    expect(pinnedOf("gemini")?.commandLine).toBe("npx -y @google/gemini-cli@0.61.0 --acp");
    const claude = pinnedOf("claude")!.pinned!;
    expect(pinnedAgentLines("claude", claude, "20.20.2")).toEqual([
      "acp-terminal: claude is @agentclientprotocol/claude-agent-acp 0.101.0 (the version tested; npx downloads it on first use)",
      'acp-terminal: @agentclientprotocol/claude-agent-acp 0.101.0 declares Node >= 22; this is Node 20.20.2: if it fails to start, run acp-terminal with Node 22 or later, or name another command for "claude" in agents.json',
    ]);
    expect(pinnedAgentLines("claude", claude, "22.1.0")).toHaveLength(1);
    expect(pinnedAgentLines("codex", pinnedOf("codex")!.pinned!, "20.20.2")).toHaveLength(1);
  });

  it("gemini runs with --no-fs, said at start with why (it cannot create a new file through the client's fs)", () => {
    const env = { ACP_TERMINAL_AGENTS: path.join(dir, "none.json") };
    const gemini = resolveAgent("gemini", env);
    const pinned = "pinned" in gemini ? gemini.pinned : undefined;
    expect(pinned?.noFs).toMatch(/cannot create a new file through the client's fs/);
    expect(pinnedAgentLines("gemini", pinned!, "20.20.2")).toContainEqual(
      expect.stringMatching(/^acp-terminal: gemini runs with --no-fs: it cannot create a new file/),
    );
    const claude = resolveAgent("claude", env);
    expect("pinned" in claude && claude.pinned?.noFs).toBeFalsy();
  });

  it("auth methods are read from either version's spelling, bounded, with the variables they name", () => {
    const methods = authMethodsOf([
      {
        id: "api-key",
        name: "API Key",
        _meta: { "api-key": { envVars: ["OPENAI_API_KEY", "bad name"] } },
      },
      {
        methodId: "login",
        name: "Login",
        type: "terminal",
        args: ["--login", 3],
        env: [{ name: "A", value: "1" }],
      },
      { name: "no id" },
      ...Array.from({ length: 100 }, (_, i) => ({ id: `m${i}`, name: "many" })),
    ]);
    expect(methods.slice(0, 2)).toEqual([
      {
        id: "api-key",
        name: "API Key",
        type: "agent",
        vars: ["OPENAI_API_KEY"],
        args: [],
        env: {},
      },
      { id: "login", name: "Login", type: "terminal", vars: [], args: [], env: { A: "1" } },
    ]);
    expect(methods).toHaveLength(31);
  });
});

describe("the fast lanes' line readers", () => {
  const chunkLine = (update: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    Buffer.from(
      JSON.stringify({
        jsonrpc: "2.0",
        method: "session/update",
        params: { sessionId: "s", update },
        ...extra,
      }),
    );
  const chunk = (data: unknown, more: Record<string, unknown> = {}) =>
    chunkLine({ sessionUpdate: "terminal_output_chunk", terminalId: "t", data, ...more });

  it("a v2 chunk's bytes are decoded from the line as Buffer.from would; anything else is left to JSON.parse and the SDK", () => {
    const bytes = Buffer.from("é✓🚀\n\x1b[2K".repeat(300));
    const read = readChunkLine(chunk(bytes.toString("base64"), { _meta: { data: "x" } }));
    expect(read?.sessionId).toBe("s");
    expect(Buffer.from(read!.bytes).equals(bytes)).toBe(true);
    expect(readChunkLine(chunk("YWJj"))?.bytes).toEqual(new Uint8Array([0x61, 0x62, 0x63]));
    for (const line of [
      chunk("YWJ"), // unpadded
      chunk("YW=j"), // padding inside
      chunk("YW*j"), // not base64
      chunk("YWJj", { sessionUpdate: "terminal_update" }),
      chunk(5),
      chunkLine({ sessionUpdate: "terminal_output_chunk", terminalId: 1, data: "YWJj" }),
      Buffer.from(
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","terminalId":"t","d\\u0061ta":"YWJj"}}}',
      ),
      Buffer.from(
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","terminalId":"t","data":"YW\\/j"}}}',
      ),
      Buffer.from(
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"terminal_output_chunk","terminalId":"t","data":"YWJj","data":"YWJj"}}}',
      ),
      Buffer.from('{"params":{"update":{"data":"YWJj"'),
    ]) {
      expect(readChunkLine(line), line.toString()).toBeUndefined();
    }
    expect(
      readChunkLine(
        chunkLine(
          { sessionUpdate: "terminal_output_chunk", terminalId: "t", data: "YWJj" },
          { id: 3 },
        ),
      ),
    ).toBeUndefined();
  });

  it("the base64 decoder takes exactly strict base64 (any bytes, any padding, each position) and gives what Buffer.from gives; 20000 seeded cases", () => {
    let seed = 20;
    const random = (below: number) => {
      seed = (seed * 48271) % 2147483647; // Park-Miller: exact in doubles
      return seed % below;
    };
    const strict = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
    const noise = "AZaz09+/=-_ *\u00e9";
    let taken = 0;
    for (let i = 0; i < 20_000; i++) {
      const bytes = Buffer.from(Array.from({ length: random(40) }, () => random(256)));
      let text = bytes.toString("base64");
      if (i % 2 === 1 && text.length > 0) {
        const at = random(text.length);
        text = text.slice(0, at) + noise[random(noise.length)]! + text.slice(at + 1);
      }
      const line = Buffer.from(`{"d":"${text}"}`);
      const read = decodeBase64(
        line,
        6,
        line.length - 2,
        i % 3 === 0 ? undefined : new Uint8Array(16),
      );
      if (strict.test(text)) {
        taken++;
        expect(Buffer.from(read ?? []).equals(Buffer.from(text, "base64")), text).toBe(true);
      } else {
        expect(read, text).toBeUndefined();
      }
    }
    expect(taken).toBeGreaterThan(10_000);
  });

  it("the base64 decoder rejects one bad character anywhere in a 64 KiB chunk, at and beside every 16 KiB boundary, and decodes the clean chunk whole", () => {
    const bytes = Buffer.from(Array.from({ length: 64 * 1024 + 2 }, (_, i) => (i * 131) % 256));
    const text = bytes.toString("base64");
    const decode = (t: string, scratch?: Uint8Array) => {
      const line = Buffer.from(`{"d":"${t}"}`);
      return decodeBase64(line, 6, line.length - 2, scratch);
    };
    expect(Buffer.from(decode(text) ?? []).equals(bytes)).toBe(true);
    expect(Buffer.from(decode(text, new Uint8Array(96 * 1024)) ?? []).equals(bytes)).toBe(true);
    const places = [0, 1, 2, 3, text.length - 5, text.length - 4, text.length - 3];
    for (let edge = 16 * 1024; edge < text.length; edge += 16 * 1024) {
      places.push(edge - 2, edge - 1, edge, edge + 1);
    }
    for (const at of places) {
      for (const bad of ["=", "-", "_", " ", "*", "\u00e9"]) {
        const broken = text.slice(0, at) + bad + text.slice(at + 1);
        expect(decode(broken), `${JSON.stringify(bad)} at ${at}`).toBeUndefined();
      }
    }
  });

  it("a v1 _meta output text is unescaped into the bytes Buffer.from(JSON.parse(...)) gives, lone surrogates as U+FFFD; other shapes are left to the SDK", () => {
    const outputs: Array<{ key: string; bytes: string }> = [];
    const lane = new MetaLane(
      (sessionId) => sessionId === "s",
      (o) => outputs.push({ key: o.key, bytes: Buffer.from(o.bytes).toString("hex") }),
    );
    const meta = (m: unknown, update: Record<string, unknown> = {}) =>
      chunkLine({ sessionUpdate: "tool_call_update", toolCallId: "c", _meta: m, ...update });
    const text = 'tab\there "quoted" \\ back \u0000\u001f é✓🚀 \ud83d alone \udc00 too\n';
    expect(
      lane.lineTap.take(meta({ terminal_output_delta: { terminal_id: "t", data: text } })),
    ).toBe(true);
    expect(outputs).toEqual([
      { key: "terminal_output_delta", bytes: Buffer.from(text).toString("hex") },
    ]);
    expect(lane.lineTap.take(meta({ terminal_output: { terminal_id: "t", data: "x" } }))).toBe(
      true,
    );
    expect(outputs[1]?.key).toBe("terminal_output");
    for (const line of [
      meta({ terminal_output_delta: { terminal_id: "t", data: "x" } }, { status: "completed" }),
      meta({ terminal_output_delta: { terminal_id: "t", data: "x" }, terminal_exit: {} }),
      meta({ terminal_output_delta: { terminal_id: 3, data: "x" } }),
      meta({ terminal_info: { terminal_id: "t" } }),
    ]) {
      expect(lane.lineTap.take(line)).toBe(false);
    }
    // A session update handed to the SDK first: the lane waits until it is delivered.
    lane.lineTap.passed({ jsonrpc: "2.0", method: "session/update", params: {} });
    expect(
      lane.lineTap.take(meta({ terminal_output_delta: { terminal_id: "t", data: "x" } })),
    ).toBe(false);
    lane.delivered();
    expect(
      lane.lineTap.take(meta({ terminal_output_delta: { terminal_id: "t", data: "x" } })),
    ).toBe(true);
  });
});
