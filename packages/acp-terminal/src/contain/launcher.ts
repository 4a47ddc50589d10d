/**
 * The host's side of the launcher (helper/launcher.pl): a small Perl process, one per host, that
 * starts every command as the child of a subreaper relay, so the host can find and kill all it
 * started by the relay it hangs under, with the machine's own pids.
 *
 * The launcher is forked from the host once; each command is forked from it, a ~5 MB process,
 * which costs the same however large the host grows (fork copies the forking process's page
 * tables: spawning from a 150 MB Node process takes twice as long as from a 50 MB one). Its pipes
 * reach the host through /proc/<launcher>/fd/<n>, which opens the same pipe. A PTY's master is
 * the host's own (node-pty); the command opens the slave by its path.
 *
 * When the host goes away, however it goes, the kernel closes the launcher's stdin; the launcher
 * then SIGKILLs every process under it, its relays' trees included, until none is left.
 *
 * The lines exchanged are encoded and parsed in launcher-protocol.ts; each command's state is a
 * Launched (launched-command.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { constants as fsConstants, openSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Socket } from "node:net";
import type { Readable } from "node:stream";
import type { CommandLauncher, LaunchedCommand, LaunchRequest } from "../spawn/launch-port.js";
import { Launched } from "./launched-command.js";
import {
  killRequest,
  launchError,
  type LauncherReport,
  openedRequest,
  ReportReader,
  startPayload,
  startRequest,
} from "./launcher-protocol.js";
import type { LauncherTools } from "./launcher-support.js";

/** The launcher's program, shipped in the package beside `dist/` (Perl 5, core modules only). */
const LAUNCHER_PROGRAM = fileURLToPath(new URL("../../helper/launcher.pl", import.meta.url));

/** What is kept of the launcher's stderr (Perl's compile or run-time error), for the first failure. */
const STDERR_KEPT_BYTES = 2_048;

/** How long a launcher gone away may take to finish its stderr before its starts are failed. */
const STDERR_GRACE_MS = 200;

/** The longest an `O` waits for a request to go with. */
const ACK_DELAY_MS = 20;
/** How long a start may take before the launcher is taken for stuck (1000 at once take ~1 s). */
const START_TIMEOUT_MS = 30_000;
/**
 * Starts sent to the launcher and not answered yet; more wait here. Its `O` lines then do not
 * queue behind a backlog of starts: every relay the launcher forks closes each pipe end it still
 * holds, which made 1000 starts at once cost it O(n²).
 */
const MAX_STARTS_SENT = 16;

interface Starting {
  resolve: (command: LaunchedCommand) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
  /** Its `S` line, until it is sent. */
  request: Buffer | undefined;
  /** Its command's `B`: about to exec. */
  began?: Extract<LauncherReport, { kind: "began" }>;
}

export class Launcher implements CommandLauncher {
  readonly #child: ChildProcess;
  readonly #starting = new Map<number, Starting>();
  readonly #running = new Map<number, Launched>();
  readonly #reports = new ReportReader();
  /** Starts waiting for a place among the MAX_STARTS_SENT, in order (settled ones are skipped). */
  readonly #queue: number[] = [];
  #sent = 0;
  #nextId = 1;
  /** `O` lines not sent yet (see #acknowledge). */
  #acks = "";
  #ackTimer: NodeJS.Timeout | undefined;
  #gone = false;
  /** The start of its stderr (STDERR_KEPT_BYTES), and whether it ended. */
  #said = "";
  #saidAll = false;

  private constructor(child: ChildProcess) {
    this.#child = child;
  }

  /** Starts a launcher (it is ready for requests at once: they wait in its pipe). */
  static start(tools: LauncherTools): Launcher {
    const child = spawn(tools.perl, [LAUNCHER_PROGRAM, String(tools.prctl)], {
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    const launcher = new Launcher(child);
    child.on("error", () => launcher.#goneAway()); // could not start: every request fails
    child.stdin?.on("error", () => {}); // EPIPE once it is gone: 'close' below says so
    const reports = child.stdout as Readable;
    reports.setEncoding("latin1");
    reports.on("data", (chunk: string) =>
      launcher.#reports.read(chunk, (report) => launcher.#report(report)),
    );
    reports.on("close", () => launcher.#goneAwayOnceSaid());
    const said = child.stderr as Readable;
    said.setEncoding("utf8");
    said.on("data", (chunk: string) => launcher.#hear(chunk));
    said.on("close", () => (launcher.#saidAll = true));
    // Neither the launcher nor its pipes keep the host alive; a command being started or running does.
    child.unref();
    for (const stream of [child.stdin, said]) {
      if (stream instanceof Socket) {
        stream.unref();
      }
    }
    launcher.#holdLoop();
    return launcher;
  }

  /** The launcher's pid while it runs. */
  get pid(): number | undefined {
    return this.#gone ? undefined : this.#child.pid;
  }

  /** False once it went away (or could not start): start another. */
  get alive(): boolean {
    return !this.#gone && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Starts a command; rejects with the errno (`code`) when it could not be started. */
  launch(request: LaunchRequest): Promise<LaunchedCommand> {
    const payload = startPayload(request);
    if (payload === undefined) {
      return Promise.reject(launchError("EINVAL", "an argument or variable holds a NUL byte"));
    }
    if (!this.alive) {
      return Promise.reject(
        launchError("ECHILD", `the launcher is not running${this.#saidReason()}`),
      );
    }
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          this.#settle(id, () =>
            reject(
              launchError(
                "ETIMEDOUT",
                `the launcher did not start it within ${START_TIMEOUT_MS} ms`,
              ),
            ),
          ),
        START_TIMEOUT_MS,
      );
      this.#starting.set(id, { resolve, reject, timer, request: startRequest(id, payload) });
      this.#queue.push(id);
      this.#holdLoop();
      this.#sendQueued();
    });
  }

  /** Ends the launcher: it kills whatever is still under it (nothing, once all was released). */
  close(): void {
    this.#child.stdin?.end();
  }

  /** Sends the queued starts there is room for. */
  #sendQueued(): void {
    while (this.alive && this.#sent < MAX_STARTS_SENT && this.#queue.length > 0) {
      const starting = this.#starting.get(this.#queue.shift()!);
      if (starting?.request) {
        this.#sent++;
        this.#send(starting.request);
        starting.request = undefined;
      }
    }
  }

  #send(line: string | Buffer): void {
    if (this.alive) {
      const acks = this.#acks;
      this.#acks = "";
      clearTimeout(this.#ackTimer);
      this.#child.stdin?.write(
        acks === "" ? line : Buffer.concat([Buffer.from(acks), Buffer.from(line)]),
      );
    }
  }

  /**
   * Tells the launcher the command's pipes are open here. Each message wakes the launcher up,
   * which costs the host and its commands a context switch on a busy machine: unless the
   * launcher's end keeps a stdin pipe open, it goes with the next request, or after ACK_DELAY_MS.
   */
  #acknowledge(id: number, stdin: boolean): void {
    const line = openedRequest(id);
    this.#acks += line;
    if (stdin) {
      this.#send("");
    } else if (this.#acks.length === line.length) {
      this.#ackTimer = setTimeout(() => this.#send(""), ACK_DELAY_MS);
      this.#ackTimer.unref();
    }
  }

  /** Keeps the event loop alive while a command is being started or runs. */
  #holdLoop(): void {
    const reports = this.#child.stdout;
    if (reports instanceof Socket) {
      if (this.#starting.size > 0 || this.#running.size > 0) {
        reports.ref();
      } else {
        reports.unref();
      }
    }
  }

  #report(report: LauncherReport): void {
    switch (report.kind) {
      case "started":
        return this.#started(report);
      case "began": {
        const starting = this.#starting.get(report.id);
        if (starting !== undefined) {
          starting.began = report;
        }
        return;
      }
      case "failed":
        return this.#settle(report.id, (starting) =>
          starting.reject(launchError(report.code, "exec failed")),
        );
      case "exited":
        this.#running.get(report.id)?.exit(report.status);
        return;
      case "emptied":
      case "lost": {
        const began = this.#starting.get(report.id)?.began;
        if (report.kind === "lost" && began !== undefined) {
          // Its command reached its exec and killed its relay (or the relay was killed) before the
          // relay said P: it was started, and what it started is no longer watched.
          this.#started({ ...began, kind: "started" });
        }
        const command = this.#running.get(report.id);
        this.#running.delete(report.id);
        if (report.kind === "lost") {
          command?.lose();
          this.#settle(report.id, (starting) =>
            starting.reject(launchError("ECHILD", "its relay was killed before it started")),
          );
        } else {
          command?.empty();
        }
        this.#holdLoop();
        return;
      }
    }
  }

  #started({ id, pid, outputFd, inputFd }: Extract<LauncherReport, { kind: "started" }>): void {
    this.#settle(id, (starting) => {
      let fds: [number | undefined, number | undefined] = [undefined, undefined];
      try {
        fds = [
          this.#openEnd(outputFd, fsConstants.O_RDONLY),
          this.#openEnd(inputFd, fsConstants.O_WRONLY),
        ];
      } catch (error) {
        this.#send(killRequest(id, "SIGKILL", pid));
        starting.reject(error instanceof Error ? error : new Error(String(error)));
        return;
      } finally {
        this.#acknowledge(id, fds[1] !== undefined);
      }
      const command = new Launched(id, pid, fds[0], fds[1], (line) => this.#send(line));
      this.#running.set(id, command);
      starting.resolve(command);
    });
  }

  /** Opens the launcher's end of a command's pipe, by its fd number there ("-": none). */
  #openEnd(fd: string | undefined, access: number): number | undefined {
    if (fd === undefined || fd === "-") {
      return undefined;
    }
    return openSync(`/proc/${this.#child.pid}/fd/${fd}`, access | fsConstants.O_NONBLOCK);
  }

  #settle(id: number, settle: (starting: Starting) => void): void {
    const starting = this.#starting.get(id);
    if (starting) {
      this.#starting.delete(id);
      clearTimeout(starting.timer);
      if (starting.request === undefined) {
        this.#sent--;
      }
      settle(starting);
      this.#holdLoop();
      this.#sendQueued();
    }
  }

  #hear(chunk: string): void {
    if (this.#said.length < STDERR_KEPT_BYTES) {
      this.#said = (this.#said + chunk).slice(0, STDERR_KEPT_BYTES);
    }
  }

  /** What the launcher said, for an error: its first non-empty lines, bounded. */
  #saidReason(): string {
    const lines = this.#said
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");
    return lines.length === 0 ? "" : `; perl said: ${lines.slice(0, 3).join(" | ")}`;
  }

  /** Its reports ended: its failures wait for what it said on stderr (a Perl error), briefly. */
  #goneAwayOnceSaid(): void {
    const said = this.#child.stderr;
    if (this.#saidAll || !said) {
      this.#goneAway();
      return;
    }
    const timer = setTimeout(() => this.#goneAway(), STDERR_GRACE_MS);
    said.once("close", () => {
      clearTimeout(timer);
      this.#goneAway();
    });
  }

  /** Its reports ended: nothing is being started or watched any more. */
  #goneAway(): void {
    if (this.#gone) {
      return;
    }
    this.#gone = true;
    for (const [id, starting] of this.#starting) {
      this.#settle(id, () =>
        starting.reject(launchError("ECHILD", `the launcher exited${this.#saidReason()}`)),
      );
    }
    for (const command of this.#running.values()) {
      command.lose();
    }
    this.#running.clear();
    this.#holdLoop();
  }
}
