/** readPipe: a child's output read into one reused buffer, or as a plain stream where that is not possible. */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { PassThrough, type Readable } from "node:stream";
import { expect, it } from "vitest";
import { readPipe } from "../src/spawn/pipe-reader.js";
import { fixture, node } from "./host-helpers.js";

it("reads a child's stdout and stderr into one reused buffer, in full, and the child still closes", async () => {
  const child = spawn(node, [fixture("flood.mjs"), "1000000"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const copies: Buffer[] = [];
  const backing = new Set<ArrayBufferLike>();
  const onChunk = (chunk: Uint8Array): void => {
    backing.add(chunk.buffer);
    copies.push(Buffer.from(chunk));
  };
  const streams = [child.stdout, child.stderr].map((stream) =>
    readPipe(stream as Readable, onChunk),
  );
  await Promise.all([...streams.map((stream) => once(stream, "close")), once(child, "close")]);
  expect(copies.length).toBeGreaterThan(1);
  expect(backing.size).toBe(1); // if this fails, Node changed its pipes and readPipe fell back to plain reads
  const text = Buffer.concat(copies).toString("utf8");
  expect(text.length).toBeGreaterThanOrEqual(1_000_004);
  expect(text.endsWith("END\n")).toBe(true);
});

it("reads a stream without a pipe handle as a plain stream", async () => {
  const stream = new PassThrough();
  const chunks: string[] = [];
  expect(readPipe(stream, (chunk) => chunks.push(Buffer.from(chunk).toString()))).toBe(stream);
  stream.end("hello");
  await once(stream, "close");
  expect(chunks).toEqual(["hello"]);
});
