import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { Socket } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { TerminalError } from "../core/errors.js";
import { messageOf } from "../core/thrown.js";
import { parseEvent, type RemoteEvent } from "./remote-events.js";
import { BOOTSTRAP, HELPER_SCRIPT } from "./remote-helper.js";
import { TailText } from "./tail-text.js";

export interface ConnectionOptions {
  /** `ssh://box`, `docker://app`: named in every error. */
  target: string;
  /** The control session's command, to which the agent's program text is appended. */
  command: (remoteArgv: string[]) => string[];
  /** How long to wait for the agent's first line. */
  connectTimeoutMs: number;
  /** How often the host pings the agent; no pong for three periods means the connection is gone. */
  heartbeatMs: number;
  /**
   * One line naming the cause and the fix of a failed start, from what the control session said on
   * stderr (or the error running its program); undefined when it knows none.
   */
  explain?: ((said: string, runError?: NodeJS.ErrnoException) => string | undefined) | undefined;
}

/** The longest line the agent may send (its lines are short: ids, numbers, an errno message). */
const MAX_LINE_BYTES = 64 * 1024;

/** What the agent's `ready` line says of the place it runs in (docs/remote-helper.md). */
export interface RemotePlaceFacts {
  /** `uname -s`: `Linux`, `Darwin`. */
  os: string;
  /** The shell the helper runs in (`/bin/busybox`, `/usr/bin/dash`). */
  helperShell: string;
  /** What a shell command runs in: `bash` on PATH, else `/bin/sh`. */
  shell: string;
  /** The user commands run as. */
  user: string;
}

/**
 * One control session to another machine: the remote agent's stdin and stdout (remote-helper.ts).
 * Terminals subscribe by token; when the session ends or stops answering pings, each of them is
 * told `connection-lost` with the reason, once. Its child and pipes do not keep Node running.
 */
export class RemoteConnection {
  readonly #options: ConnectionOptions;
  readonly #listeners = new Map<string, (event: RemoteEvent) => void>();
  readonly #stderr = new TailText(4096);
  readonly #lostListeners: ((reason: string) => void)[] = [];
  #child: ChildProcess | undefined;
  #lostReason: string | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #lastPong = Date.now();
  #pings = 0;
  /** `sync()` calls waiting for their pong. */
  readonly #syncs = new Map<string, () => void>();
  /** The agent's private directory on the other machine (its socket and script are there). */
  directory = "";
  /** The connection's random id: the commands it starts carry `ACP_TERMINAL_REMOTE=<nonce>.<token>`. */
  readonly nonce = randomBytes(8).toString("hex");
  /** The agent's pid there: a wrapper whose agent is gone kills its command's group. */
  agentPid = "";
  facts: RemotePlaceFacts = { os: "unknown", helperShell: "sh", shell: "/bin/sh", user: "" };

  constructor(options: ConnectionOptions) {
    this.#options = options;
  }

  get lost(): string | undefined {
    return this.#lostReason;
  }

  /** The wrapper command a terminal's session runs (the helper's role `wrap`). */
  wrapperArgv(token: string, pty: boolean): string[] {
    return ["sh", `${this.directory}/h.sh`, "wrap", token, pty ? "pty" : "pipe", this.agentPid];
  }

  /** Starts the control session; resolves once the agent said `ready`. */
  async open(): Promise<void> {
    const timeoutSeconds = Math.max(2, Math.ceil((this.#options.heartbeatMs * 4) / 1000));
    const [file = "", ...args] = this.#options.command([
      "sh",
      "-c",
      BOOTSTRAP,
      "acp-terminal",
      HELPER_SCRIPT,
      this.nonce,
      String(timeoutSeconds),
    ]);
    const child = spawn(file, args, { stdio: ["pipe", "pipe", "pipe"], detached: true });
    this.#child = child;
    child.stderr.on("data", (chunk: Buffer) => this.#stderr.append(chunk));
    child.stdin.on("error", () => {}); // EPIPE once the session is gone: 'exit' reports that
    const ready = this.#readLines(child);
    // 'close': exited and its stdio closed, so what it said on stderr is all there. An 'error'
    // (it could not be run) ends the wait too: `spawned` reports it.
    const exited = once(child, "close").then(
      () => undefined,
      () => undefined,
    );
    const spawned = once(child, "spawn").then(
      () => undefined,
      (error: unknown) => {
        throw this.#failure(
          `cannot run ${file}: ${messageOf(error)}`,
          error instanceof Error ? error : undefined,
        );
      },
    );
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(this.#failure(`no answer in ${this.#options.connectTimeoutMs} ms`)),
        this.#options.connectTimeoutMs,
      );
    });
    try {
      await spawned;
      const line = await Promise.race([
        ready,
        timedOut,
        exited.then(() => {
          throw this.#failure("the session ended before the remote helper started");
        }),
      ]);
      this.#readReady(line);
    } catch (error) {
      child.kill("SIGKILL");
      throw error;
    } finally {
      clearTimeout(timer);
    }
    void exited.then(() => this.#lose(this.#endReason()));
    for (const stream of [child.stdin, child.stdout, child.stderr]) {
      if (stream instanceof Socket) {
        stream.unref(); // an idle connection does not keep the process alive
      }
    }
    child.unref();
    this.#heartbeat = setInterval(() => this.#ping(), this.#options.heartbeatMs);
    this.#heartbeat.unref();
  }

  /** Calls `listener` once when the connection is lost (at once if it is). */
  onLost(listener: (reason: string) => void): void {
    if (this.#lostReason !== undefined) {
      listener(this.#lostReason);
    } else {
      this.#lostListeners.push(listener);
    }
  }

  /** Events for `token` until `unsubscribe`. A lost connection is reported at once. */
  subscribe(token: string, listener: (event: RemoteEvent) => void): () => void {
    if (this.#lostReason !== undefined) {
      listener({ kind: "connection-lost", reason: this.#lostReason });
    }
    this.#listeners.set(token, listener);
    return () => this.#listeners.delete(token);
  }

  /** One line to the agent; throws when the connection is gone. */
  send(line: string, payload?: Uint8Array): void {
    const stdin = this.#child?.stdin;
    if (this.#lostReason !== undefined || !stdin || stdin.destroyed) {
      throw new TerminalError(
        "signal_failed",
        `The connection to ${this.#options.target} is gone: ${this.#lostReason ?? "not open"}`,
      );
    }
    stdin.write(`${line}\n`);
    if (payload) {
      stdin.write(payload);
    }
  }

  /**
   * Resolves once the agent has answered a ping sent now (or the connection is lost, or after
   * `timeoutMs`): every report a wrapper made before this call has then arrived (the agent reads
   * its wrappers before its stdin).
   */
  async sync(timeoutMs: number): Promise<void> {
    const id = String(++this.#pings);
    const answered = new Promise<void>((resolve) => {
      this.#syncs.set(id, resolve);
      this.onLost(() => resolve());
    });
    try {
      this.send(`ping ${id}`);
    } catch {
      return; // lost: the caller hears it as an event
    }
    const timer = new AbortController();
    await Promise.race([
      answered,
      delay(timeoutMs, undefined, { signal: timer.signal }).catch(() => undefined),
    ]);
    timer.abort();
    this.#syncs.delete(id);
  }

  /** Ends the session: the agent reads end-of-file and kills what is left. Waits up to `waitMs`. */
  async close(waitMs = 5000): Promise<void> {
    const child = this.#child;
    this.#lose(`${this.#options.target} was closed`);
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      return;
    }
    const exited = once(child, "exit");
    child.stdin?.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), waitMs);
    await exited;
    clearTimeout(timer);
  }

  /** `ready DIR PID os=... sh=... bash=... setsid=... user=...` */
  #readReady(line: string): void {
    const [, directory = "", pid = "", ...pairs] = line.split(" ");
    const said = new Map(
      pairs.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
    );
    this.directory = directory;
    this.agentPid = pid;
    const bash = said.get("bash");
    this.facts = {
      os: said.get("os") || "unknown",
      helperShell: said.get("sh") || "sh",
      shell: bash && bash !== "-" ? bash : "/bin/sh",
      user: said.get("user") ?? "",
    };
  }

  #failure(problem: string, runError?: NodeJS.ErrnoException): TerminalError {
    const said = this.#stderr.text().trim();
    // The helper's bootstrap and its agent say what the place lacks on a line of their own.
    const explained =
      this.#options.explain?.(said, runError) ?? /^acp-terminal: (.+)$/m.exec(said)?.[1];
    return new TerminalError(
      "spawn_failed",
      `Cannot connect to ${this.#options.target}: ${explained ?? `${problem}${said ? `: ${said}` : ""}`}`,
      { target: this.#options.target, ...(explained ? { said } : {}) },
    );
  }

  #endReason(): string {
    const child = this.#child;
    const how =
      child?.signalCode != null ? `killed by ${child.signalCode}` : `exit ${child?.exitCode}`;
    const said = this.#stderr.text().trim();
    return `the control session ended (${how})${said ? `: ${said}` : ""}`;
  }

  #ping(): void {
    if (Date.now() - this.#lastPong > this.#options.heartbeatMs * 3) {
      this.#lose(`no answer from ${this.#options.target} for ${Date.now() - this.#lastPong} ms`);
      this.#child?.kill("SIGKILL");
      return;
    }
    try {
      this.send(`ping ${++this.#pings}`);
    } catch {
      // Lost meanwhile: the 'exit' handler reports it.
    }
  }

  #lose(reason: string): void {
    if (this.#lostReason !== undefined) {
      return;
    }
    this.#lostReason = reason;
    clearInterval(this.#heartbeat);
    for (const listener of [...this.#listeners.values()]) {
      listener({ kind: "connection-lost", reason });
    }
    for (const listener of this.#lostListeners.splice(0)) {
      listener(reason);
    }
  }

  /** Dispatches the agent's lines; resolves with its `ready` line. */
  #readLines(child: ChildProcess): Promise<string> {
    let pending = "";
    let ready = false;
    return new Promise((resolve) => {
      child.stdout?.setEncoding("utf8");
      child.stdout?.on("data", (text: string) => {
        pending += text;
        if (pending.length > MAX_LINE_BYTES && !pending.includes("\n")) {
          this.#lose(`the remote helper sent a line over ${MAX_LINE_BYTES} bytes`);
          child.kill("SIGKILL");
          return;
        }
        let newline: number;
        while ((newline = pending.indexOf("\n")) >= 0) {
          const line = pending.slice(0, newline);
          pending = pending.slice(newline + 1);
          if (line.startsWith("ready ")) {
            ready = true;
            resolve(line);
          } else if (!ready) {
            // Before the agent runs, what comes is the session's own (docker exec reports a
            // missing sh on stdout): kept with its stderr for the error message.
            this.#stderr.append(Buffer.from(`${line}\n`));
          } else {
            this.#dispatch(line);
          }
        }
      });
    });
  }

  #dispatch(line: string): void {
    const [op = "", token = "", ...rest] = line.split(" ");
    if (op === "pong") {
      this.#lastPong = Date.now();
      this.#syncs.get(token)?.();
      this.#syncs.delete(token);
      return;
    }
    const event = parseEvent(op, rest);
    if (event) {
      this.#listeners.get(token)?.(event);
    }
  }
}
