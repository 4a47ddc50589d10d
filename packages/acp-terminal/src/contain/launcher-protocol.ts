/**
 * The launcher's line protocol as the host speaks it (helper/launcher.pl lists every line): the
 * requests written to its stdin, and its reports read back as typed records. Nothing here touches
 * a process.
 */
import { constants as osConstants } from "node:os";
import type { ExitStatus } from "../core/types.js";
import { signalNameOf } from "../terminate/signals.js";
import type { LaunchRequest } from "../spawn/launch-port.js";

const ERRNO_NAMES = new Map(Object.entries(osConstants.errno).map(([name, n]) => [n, name]));

/** A report line of the launcher, parsed (`R` and unknown lines are none: nothing to do). */
export type LauncherReport =
  /** `P`: the command runs; its pipes' ends are the launcher's fds (undefined or "-": none). */
  | {
      kind: "started";
      id: number;
      pid: number;
      outputFd: string | undefined;
      inputFd: string | undefined;
    }
  /** `B`: it is about to exec (so it was started, if its relay is lost before it says P or E). */
  | {
      kind: "began";
      id: number;
      pid: number;
      outputFd: string | undefined;
      inputFd: string | undefined;
    }
  /** `E`: it could not be started, with the errno's name. */
  | { kind: "failed"; id: number; code: string }
  /** `X`: it exited or was killed by a signal. */
  | { kind: "exited"; id: number; status: ExitStatus }
  /** `G`: its tree is empty. */
  | { kind: "emptied"; id: number }
  /** `L`: its relay was killed from outside; nothing watches its tree any more. */
  | { kind: "lost"; id: number };

/** An error with an errno `code`, as a failed spawn gives (spawnError turns it into a message). */
export function launchError(code: string, reason: string): Error {
  return Object.assign(new Error(`${code}: ${reason}`), { code });
}

/** The fields of an `S` request, NUL-separated, the variables last (`envBytes` of them). */
export interface StartPayload {
  fields: Buffer;
  envBytes: number;
}

/** The fields of an `S` request; undefined when one holds a NUL byte itself. */
export function startPayload(request: LaunchRequest): StartPayload | undefined {
  const fields = [
    request.stdin ? "1" : "0",
    request.tty ?? "",
    request.cwd,
    request.file,
    String(request.args.length),
    ...request.args,
  ];
  const variables = Object.entries(request.env).map(([name, value]) => `${name}=${value}`);
  if (fields.some((field) => field.includes("\0")) || variables.some((v) => v.includes("\0"))) {
    return undefined;
  }
  const env = Buffer.from(variables.join("\0"));
  const head = Buffer.from(`${fields.join("\0")}\0`);
  return { fields: Buffer.concat([head, env]), envBytes: env.byteLength };
}

/** `S`: start command `id` with `payload` (startPayload). */
export function startRequest(id: number, { fields, envBytes }: StartPayload): Buffer {
  return Buffer.concat([Buffer.from(`S ${id} ${fields.byteLength} ${envBytes}\n`), fields]);
}

/** `K`: send `signal` to command `id`'s tree outside its group `pgid` (SIGKILL: to all of it). */
export function killRequest(id: number, signal: NodeJS.Signals, pgid: number): string {
  return `K ${id} ${osConstants.signals[signal]} ${pgid}\n`;
}

/** `O`: the host has opened command `id`'s pipes. */
export function openedRequest(id: number): string {
  return `O ${id}\n`;
}

/** Splits the launcher's output into reports; a line cut between two chunks waits for its end. */
export class ReportReader {
  #pending = "";

  read(chunk: string, onReport: (report: LauncherReport) => void): void {
    const lines = (this.#pending + chunk).split("\n");
    this.#pending = lines.pop() ?? "";
    for (const line of lines) {
      const report = parseReport(line.split(" "));
      if (report) {
        onReport(report);
      }
    }
  }
}

function parseReport([type, idText, ...rest]: string[]): LauncherReport | undefined {
  const id = Number(idText);
  switch (type) {
    case "P":
    case "B": {
      const [pidText, , outputFd, inputFd] = rest;
      const kind = type === "P" ? "started" : "began";
      return { kind, id, pid: Number(pidText), outputFd, inputFd };
    }
    case "E":
      return { kind: "failed", id, code: ERRNO_NAMES.get(Number(rest[0])) ?? "EIO" };
    case "X":
      return {
        kind: "exited",
        id,
        status:
          rest[0] === "s"
            ? { exitCode: null, signal: signalNameOf(Number(rest[1])) }
            : { exitCode: Number(rest[1]), signal: null },
      };
    case "G":
      return { kind: "emptied", id };
    case "L":
      return { kind: "lost", id };
    default:
      return undefined; // R (the launcher runs) and anything else: nothing to do
  }
}
