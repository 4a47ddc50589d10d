#!/usr/bin/env node
// A transparent stdio tap: `node tap.mjs --out FILE [--stderr FILE] -- COMMAND [ARGS...]` starts
// COMMAND, passes the bytes of stdin and stdout through unchanged, and appends every line of each
// direction to FILE as JSONL with the time since the tap started:
//   {"t":12,"from":"client","msg":{...}}   a JSON-RPC message the client sent
//   {"t":40,"from":"agent","msg":{...}}    a message the agent sent
//   {"t":900,"from":"client","eof":true}   the client closed the agent's stdin
//   {"t":950,"exit":{"code":0,"signal":null}}  the agent exited
// A line that is not JSON is kept as {"raw": "..."}; lines over 1 MiB are cut (with "cut": bytes),
// or over `--max-line BYTES` when given (a client that answers with megabytes of output).
// The tap exits as the command does; SIGTERM/SIGINT/SIGHUP to the tap are passed on to it.
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { performance } from "node:perf_hooks";
import { StringDecoder } from "node:string_decoder";

const separator = process.argv.indexOf("--");
const options = process.argv.slice(2, separator < 0 ? undefined : separator);
const command = separator < 0 ? [] : process.argv.slice(separator + 1);
const out = valueOf("--out");
if (out === undefined || command.length === 0) {
  process.stderr.write(
    "usage: node tap.mjs --out FILE [--stderr FILE] [--max-line BYTES] -- COMMAND [ARGS...]\n",
  );
  process.exit(2);
}
const stderrFile = valueOf("--stderr");
const MAX_RECORDED_LINE = Number(valueOf("--max-line") ?? 1024 * 1024);

const started = performance.now();
const record = createWriteStream(out, { flags: "a" });
/** @param {Record<string, unknown>} entry */
function write(entry) {
  record.write(`${JSON.stringify({ t: Math.round(performance.now() - started), ...entry })}\n`);
}

const child = spawn(command[0], command.slice(1), {
  stdio: ["pipe", "pipe", stderrFile === undefined ? "inherit" : "pipe"],
});
const { stdin: agentStdin, stdout: agentStdout } = child;
if (agentStdin === null || agentStdout === null) {
  throw new Error("the agent was started without pipes");
}
if (stderrFile !== undefined && child.stderr) {
  child.stderr.pipe(createWriteStream(stderrFile, { flags: "a" }));
}
child.on("error", (error) => {
  process.stderr.write(`tap: cannot start ${command[0]}: ${error.message}\n`);
  write({ exit: { code: null, signal: null, error: error.message } });
  record.end(() => process.exit(127));
});

process.stdin.on("data", (chunk) => {
  lines("client", chunk);
  agentStdin.write(chunk);
});
process.stdin.on("end", () => {
  flush("client");
  write({ from: "client", eof: true });
  agentStdin.end();
});
agentStdin.on("error", () => {
  // The agent is gone; its exit is recorded below.
});
agentStdout.on("data", (chunk) => {
  lines("agent", chunk);
  if (!process.stdout.write(chunk)) {
    agentStdout.pause();
    process.stdout.once("drain", () => agentStdout.resume());
  }
});
process.stdout.on("error", () => {
  // The client stopped reading; the agent's lines are still recorded.
});
child.on("exit", (code, signal) => {
  flush("agent");
  write({ exit: { code, signal } });
  record.end(() => process.exit(code ?? 1));
});
for (const name of /** @type {const} */ (["SIGTERM", "SIGINT", "SIGHUP"])) {
  process.on(name, () => child.kill(name));
}

/** @type {Record<string, string>} */
const pending = { client: "", agent: "" };
// A chunk may end inside a UTF-8 character: each direction decodes across chunks.
const decoders = { client: new StringDecoder("utf8"), agent: new StringDecoder("utf8") };

/**
 * @param {"client" | "agent"} from
 * @param {Buffer} chunk
 */
function lines(from, chunk) {
  const text = pending[from] + decoders[from].write(chunk);
  const parts = text.split("\n");
  pending[from] = parts.pop() ?? "";
  for (const line of parts) {
    entry(from, line);
  }
  if (pending[from].length > MAX_RECORDED_LINE) {
    entry(from, pending[from]);
    pending[from] = "";
  }
}

/** @param {"client" | "agent"} from */
function flush(from) {
  pending[from] += decoders[from].end();
  if (pending[from] !== "") {
    entry(from, pending[from]);
    pending[from] = "";
  }
}

/**
 * @param {"client" | "agent"} from
 * @param {string} line
 */
function entry(from, line) {
  if (line.trim() === "") {
    return;
  }
  if (line.length > MAX_RECORDED_LINE) {
    write({ from, raw: line.slice(0, MAX_RECORDED_LINE), cut: line.length });
    return;
  }
  try {
    write({ from, msg: JSON.parse(line) });
  } catch {
    write({ from, raw: line });
  }
}

/** @param {string} name */
function valueOf(name) {
  const index = options.indexOf(name);
  return index < 0 ? undefined : options[index + 1];
}
