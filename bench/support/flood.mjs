#!/usr/bin/env node
/**
 * The generator both sides of the throughput benchmark read: writes <totalBytes> (a multiple of
 * 1 MiB) of mixed UTF-8 to stdout in 1 MiB blocks with blocking writes, the last block ending
 * with floodEnd(totalBytes), then exits.
 */
import { writeSync } from "node:fs";
import { FLOOD_BLOCK_BYTES, FLOOD_PADDING_BYTES, floodEnd, payload } from "./content.mjs";

const totalBytes = Number(process.argv[2]);
if (!Number.isSafeInteger(totalBytes) || totalBytes <= 0 || totalBytes % FLOOD_BLOCK_BYTES !== 0) {
  process.stderr.write(
    `flood: totalBytes must be a positive multiple of ${FLOOD_BLOCK_BYTES}, received ${process.argv[2]}\n`,
  );
  process.exit(2);
}
const block = payload(FLOOD_BLOCK_BYTES, { reserveAscii: FLOOD_PADDING_BYTES });
const last = Buffer.from(block);
const end = Buffer.from(floodEnd(totalBytes));
end.copy(last, last.length - end.length); // over the ASCII padding: still valid UTF-8

function writeAll(buffer) {
  let offset = 0;
  while (offset < buffer.length) offset += writeSync(1, buffer, offset);
}

for (let written = 0; written < totalBytes; written += FLOOD_BLOCK_BYTES) {
  writeAll(written + FLOOD_BLOCK_BYTES === totalBytes ? last : block);
}
