import { TerminalHost } from "acp-terminal";
import { openSync, writeSync, closeSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
const N = Number(process.argv[2] ?? 1073741824);
const mode = process.argv[3] ?? "full";
const host = new TerminalHost();
const owner = { connectionId: "c", sessionId: "s" };
const fd = openSync(mkdtempSync(tmpdir() + "/p-") + "/out", "w");
const dec = new TextDecoder();
let pending = [];
let pendingBytes = 0;
let total = 0;
let items = 0;
let lines = 0;
const flush = () => {
  if (pendingBytes) {
    writeSync(fd, pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes));
    pending = [];
    pendingBytes = 0;
  }
};
host.on("output", ({ data }) => {
  if (mode === "count") {
    total += data.length;
    return;
  }
  if (mode === "raw") {
    pending.push(data);
    pendingBytes += data.length;
    if (pendingBytes >= 1 << 20) flush();
    total += data.length;
    return;
  }
  const text = dec.decode(data, { stream: true });
  const bytes = mode === "reencode" || mode === "full" ? Buffer.from(text) : data;
  pending.push(bytes);
  pendingBytes += bytes.length;
  total += bytes.length;
  if (pendingBytes >= 1 << 20) flush();
  if (mode === "full") {
    for (let i = 0; i < text.length; i += 8192) {
      items++;
      text.slice(i, i + 8192);
    }
    let c = 0;
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) c++;
    lines += c;
  }
});
const t0 = performance.now();
const id = await host.create(owner, {
  command: `yes 'line of some text here 0123456789 abcdefghijklmnopqrstuvwxyz' | head -c ${N}`,
});
await host.waitForExit(owner, id);
flush();
closeSync(fd);
console.log(mode, (performance.now() - t0).toFixed(0), "ms", total, items, lines);
await host.dispose();
