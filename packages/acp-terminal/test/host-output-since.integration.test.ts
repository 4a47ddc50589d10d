/** TerminalHost.output with `sinceByte`: exact increments from a stream offset. */
import { describe, expect, it } from "vitest";
import {
  fixture,
  makeHost,
  node,
  outputMatching,
  owner,
  rejection,
  until,
} from "./host-helpers.js";

describe("output since a byte offset", () => {
  it("returns only what follows the offset, with fromByte, while the command runs and after", async () => {
    const host = makeHost();
    const id = await host.create(owner, {
      command: node,
      args: [fixture("echo-lines.mjs")],
      stdin: true,
    });
    await outputMatching(host, id, /ready\n/);
    const first = host.output(owner, id, { sinceByte: 0 });
    expect(first).toMatchObject({
      output: "ready\n",
      totalBytes: 6,
      droppedBytes: 0,
      fromByte: 0,
      truncated: false,
    });
    expect(first.exitStatus).toBeUndefined();
    expect(host.output(owner, id, { sinceByte: 6 })).toMatchObject({
      output: "",
      totalBytes: 6,
      fromByte: 6,
    });
    await host.write(owner, id, "héllo\n", { eof: true });
    await host.waitForExit(owner, id);
    const rest = host.output(owner, id, { sinceByte: first.totalBytes });
    expect(rest).toMatchObject({
      output: "got: héllo\neof\n",
      fromByte: 6,
      exitStatus: { exitCode: 0, signal: null },
    });
    expect(rest.totalBytes).toBe(6 + Buffer.byteLength("got: héllo\neof\n"));
  });

  it("starts at the first retained character when the offset was dropped; fromByte says how much was missed", async () => {
    const host = makeHost();
    // 20 bytes of "é" (2 bytes each) with a limit of 9: the newest 9 bytes start inside a character.
    const id = await host.create(owner, { command: "printf 'éééééééééé'", outputByteLimit: 9 });
    await host.waitForExit(owner, id);
    const snapshot = host.output(owner, id, { sinceByte: 3 });
    expect(snapshot).toMatchObject({
      output: "éééé",
      totalBytes: 20,
      droppedBytes: 12,
      fromByte: 12,
      truncated: true,
    });
    expect(host.output(owner, id).output).toBe("éééé");
  });

  it("moves an offset inside a character to the next boundary", async () => {
    const host = makeHost();
    const id = await host.create(owner, { command: "printf 'a€b'" });
    await host.waitForExit(owner, id);
    expect(host.output(owner, id, { sinceByte: 2 })).toMatchObject({
      output: "b",
      fromByte: 4,
      totalBytes: 5,
    });
  });

  it("refuses an offset beyond totalBytes or not a non-negative integer, naming sinceByte", async () => {
    const host = makeHost();
    const id = await host.create(owner, { command: "printf 12345" });
    await host.waitForExit(owner, id);
    expect(host.output(owner, id, { sinceByte: 5 })).toMatchObject({ output: "", fromByte: 5 });
    const beyond = await rejection(
      Promise.resolve().then(() => host.output(owner, id, { sinceByte: 6 })),
    );
    expect(beyond.code).toBe("invalid_params");
    expect(beyond.message).toBe(
      "Invalid sinceByte: 6 is beyond totalBytes 5; pass the totalBytes of an earlier output read",
    );
    for (const bad of [-1, 1.5, "3"]) {
      const error = await rejection(
        Promise.resolve().then(() => host.output(owner, id, { sinceByte: bad as number })),
      );
      expect(error.message).toMatch(/^Invalid sinceByte: expected a non-negative integer/);
    }
  });

  it("PTY: offsets count raw bytes; the text is the rendering of the bytes after the offset", async () => {
    const host = makeHost();
    let rawBytes = 0;
    host.on("output", ({ data }) => (rawBytes += data.byteLength));
    const id = await host.create(owner, {
      command: node,
      args: [fixture("echo-lines.mjs")],
      pty: true,
    });
    await outputMatching(host, id, /ready\n/);
    const first = host.output(owner, id, { sinceByte: 0 });
    expect(first.totalBytes).toBe(rawBytes); // "ready\r\n": raw bytes, rendered as "ready\n"
    expect(first.output).toBe("ready\n");
    await host.write(owner, id, "\x1b[31mred\x1b[0m\r");
    await until(() => host.output(owner, id).output.includes("got: red"), {
      message: "the echoed line",
    });
    const next = host.output(owner, id, { sinceByte: first.totalBytes });
    expect(next.fromByte).toBe(first.totalBytes);
    expect(next.output).toContain("got: red\n");
    expect(next.output).not.toContain("ready");
  });
});
