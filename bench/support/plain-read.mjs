#!/usr/bin/env node
/**
 * The baseline of the CLI benchmark, in a fresh Node process: spawns `<command> <args…>` and
 * counts what arrives on its stdout, then prints `{"ms","cpuMs","bytes"}` (spawn → close; CPU of
 * this process over the same span).
 */
import { spawn } from "node:child_process";

const [command, ...args] = process.argv.slice(2);
const cpu = process.cpuUsage();
const started = performance.now();
const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
let bytes = 0;
child.stdout.on("data", (chunk) => (bytes += chunk.length));
child.once("close", (code) => {
  const ms = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  if (code !== 0) {
    process.stderr.write(`plain read: ${command} exited with ${code}\n`);
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify({ ms, cpuMs: (user + system) / 1000, bytes })}\n`);
});
