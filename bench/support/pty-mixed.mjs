#!/usr/bin/env node
/**
 * The generator the PTY screen benchmark reads: writes <totalBytes> of terminal output to stdout
 * (a PTY) in 64 KiB blocking writes, like a build log: colored lines with CJK and emoji, a
 * `\r` progress bar with ESC[K, and ESC[1A ESC[2K redraws of the line above. Ends with the line
 * `END <totalBytes>`, then exits a second later (so a busy reader still gets all of it).
 */
import { writeSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

export function mixedBlock(bytes) {
  const parts = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const part =
      i % 10 === 9
        ? `\x1b[1A\x1b[2K\x1b[33mredrawn\x1b[0m line ${i}\n`
        : i % 4 === 3
          ? `\r[${"#".repeat(i % 20).padEnd(20)}] ${i % 100}/100\x1b[K`
          : `\x1b[1m\x1b[32m   Compiling\x1b[0m crate_${i} v1.2.${i % 10} (/src/crate_${i}) 中文 😀\n`;
    parts.push(part);
    size += Buffer.byteLength(part);
  }
  return Buffer.from(parts.join("")); // whole parts: a little over `bytes`, no character cut
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const totalBytes = Number(process.argv[2]);
  const block = mixedBlock(64 * 1024);
  const writeAll = (buffer) => {
    let offset = 0;
    while (offset < buffer.length) offset += writeSync(1, buffer, offset);
  };
  for (let written = 0; written < totalBytes; written += block.length) writeAll(block);
  writeAll(Buffer.from(`\x1b[0m\nEND ${totalBytes}\n`));
  // node-pty drops output still unread 200 ms after the exit: stay until the reader has it all.
  setTimeout(() => {}, 1000);
}
