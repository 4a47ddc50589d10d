import { StringDecoder } from "node:string_decoder";
import { messageOf } from "../../base/errors.js";
import type { OutputStream, TerminalProvider } from "../../providers/types.js";
import { SnapshotDelta } from "../output/delta.js";
import type { OutputLog } from "../output/output-log.js";
import { MAX_NOTICE_CHARS } from "../../model/run-record.js";
import { pause, realNowMs, sleep, withinMs } from "./deadline.js";

/**
 * Background polling reads at most ~8 MB/s of whole snapshots (a 1 MiB tail: every ~130 ms).
 * Exact increments (`sinceByte`) carry only new text and are not capped.
 */
const POLL_CHARS_PER_MS = 8000;

/** Consecutive failed reads after which the terminal is given up (the run fails with the reason). */
const MAX_READ_FAILURES = 10;

/**
 * Reads one terminal's output into a run's OutputLog: single-flight reads (a read asked for while
 * one is in flight runs once after it), and the adaptive poll loop — every `minMs` while output
 * flows (and for `maxMs` after it), then doubling to `maxMs` when idle, woken at once by `wake()`, stopped by `signal`.
 * Once closed (the run settles: its output is final, its terminal about to be released) it starts
 * no read, and what a read in flight brings afterwards, an answer or a failure, is dropped: a read
 * queued behind a slow answer would otherwise reach a released terminal and fail.
 */
/** The reason a poll is woken early (abort() without one builds a DOMException each time). */
const WOKEN = "woken";

export class SnapshotReader {
  private readonly delta = new SnapshotDelta();
  private inflight: Promise<boolean> | null = null;
  private queued: Promise<boolean> | null = null;
  private wakeController: AbortController | null = null;
  private lastSnapshotChars = 0;
  private failures = 0;
  private closed = false;
  /** The provider's notices (all so far, with each read) already noted. */
  private noticesSeen = 0;
  /**
   * Pushed output (`startStream`): the provider's stream, the decoder of its bytes (node's
   * StringDecoder: about 6x TextDecoder's speed on logs) and how many bytes of a character cut
   * at the end of the last chunk it holds.
   */
  private stream: { source: OutputStream; decoder: StringDecoder; held: number } | null = null;

  constructor(
    private readonly provider: TerminalProvider,
    private readonly terminalId: string,
    private readonly log: OutputLog,
    private readonly onOutput: () => void,
    /** Called once after `MAX_READ_FAILURES` consecutive failed reads, with the last error's message. */
    private readonly onGiveUp: (message: string) => void = () => {},
  ) {}

  /**
   * Takes the output as the provider pushes it, where it can (see `TerminalProvider.stream`):
   * true when it does, and polling is then not needed (reads still tell the exit).
   */
  startStream(): boolean {
    const source = this.provider.stream?.(
      this.terminalId,
      (bytes) => this.pushed(bytes),
      (text) => this.note(text),
    );
    if (!source) {
      return false;
    }
    this.stream = { source, decoder: new StringDecoder("utf8"), held: 0 };
    if (source.fromByte > 0) {
      this.delta.advance(source.fromByte);
      this.log.appendDelta(
        { text: "", lostBytes: source.fromByte, lostUnknown: false, exact: true },
        false,
      );
    }
    this.pushed(source.backlog);
    return true;
  }

  /** The run settled: no more reads, pushed output stops, late answers are dropped. Idempotent. */
  close(): void {
    this.closed = true;
    this.stream?.source.stop();
    this.stream = null;
  }

  private pushed(bytes: Uint8Array): void {
    if (!this.stream || bytes.length === 0) {
      return;
    }
    this.delta.advance(bytes.length);
    const text = this.stream.decoder.write(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length),
    );
    // Whole valid UTF-8 (nothing held on either side, nothing replaced): these bytes are the
    // text's UTF-8, so the spill takes them as they are instead of encoding the text again.
    const whole =
      this.stream.held === 0 && cutCharacterBytes(bytes) === 0 && !text.includes("\uFFFD");
    this.stream.held = whole ? 0 : cutCharacterBytes(bytes);
    const raw = whole ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length) : undefined;
    if (this.log.appendOutput(text, false, raw) > 0) {
      this.onOutput();
    }
  }

  /**
   * Reads now; resolves true when the snapshot says the command exited and its output drained.
   * Pushed output needs no read (every byte came as the host read it), and must not make one: its
   * offset may fall inside a character the host holds back, which the host refuses as `sinceByte`.
   */
  read(): Promise<boolean> {
    if (this.stream || this.closed) {
      return Promise.resolve(false);
    }
    if (!this.inflight) {
      this.inflight = this.readOnce().finally(() => (this.inflight = null));
      return this.inflight;
    }
    this.queued ??= this.inflight.then(() => {
      this.queued = null;
      return this.read();
    });
    return this.queued;
  }

  async poll(options: {
    minMs: number;
    maxMs: number;
    signal: AbortSignal;
    stop: () => boolean;
  }): Promise<void> {
    let intervalMs = options.minMs;
    let lastGrowthAtMs = realNowMs();
    // The first read waits one interval: a quick command has exited by then and is read once, on exit.
    for (;;) {
      this.wakeController = new AbortController();
      const signal = AbortSignal.any([this.wakeController.signal, options.signal]);
      await pause(intervalMs, signal); // woken early: exit or settle
      if (options.stop() || options.signal.aborted) {
        return;
      }
      const before = this.log.itemCount;
      await this.read();
      if (this.log.itemCount > before) {
        lastGrowthAtMs = realNowMs();
      }
      // Stay fast for a while after output (lines often come in bursts), then back off.
      intervalMs =
        realNowMs() - lastGrowthAtMs < options.maxMs
          ? options.minMs
          : Math.min(options.maxMs, intervalMs * 2);
      // A whole snapshot repeats the retained tail each time: cap the polling bandwidth.
      intervalMs = Math.max(intervalMs, this.lastSnapshotChars / POLL_CHARS_PER_MS);
    }
  }

  /** A remark of the client about the command, as a notice (cut: a client's words are not bounded). */
  private note(text: string): void {
    this.log.appendNotice(
      text.length > MAX_NOTICE_CHARS ? `${text.slice(0, MAX_NOTICE_CHARS - 1)}…` : text,
    );
  }

  wake(): void {
    this.wakeController?.abort(WOKEN);
  }

  /**
   * The final output, after the exit: reads until the client says the output is drained, for at
   * most `drainMs`, each read bounded by `callWaitMs` too (a client that stops answering must not
   * keep the run from settling), `pollMs` apart; `stopped` ends it early.
   */
  async drain(
    timing: { drainMs: number; callWaitMs: number; pollMs: number },
    stopped: () => boolean,
  ): Promise<void> {
    if (this.stream) {
      // The provider's exit comes after its last push: a character cut at the very end (invalid
      // output) is shown as U+FFFD, not held back.
      if (this.log.appendOutput(this.stream.decoder.end()) > 0) {
        this.onOutput();
      }
      return;
    }
    const deadline = realNowMs() + timing.drainMs;
    while (!stopped()) {
      const read = await withinMs(this.read(), timing.callWaitMs);
      if ((read.ok && read.value) || realNowMs() >= deadline) {
        return;
      }
      await sleep(timing.pollMs);
    }
  }

  private async readOnce(): Promise<boolean> {
    if (this.closed) {
      return false;
    }
    const sinceByte = this.provider.capabilities.outputSince ? this.delta.sinceByte : undefined;
    let snapshot;
    try {
      snapshot = await this.provider.output(
        this.terminalId,
        sinceByte === undefined ? undefined : { sinceByte },
      );
    } catch (error) {
      if (this.closed) {
        return false; // the terminal was released meanwhile: not a failure to read the command's output
      }
      // Retried by the next poll; a vanished terminal usually surfaces through waitForExit. A
      // provider that keeps failing is given up rather than polled forever.
      this.failures += 1;
      const message = messageOf(error);
      if (this.failures === 1) {
        this.log.appendNotice(`[acp-process] reading the output failed (${message}); retrying`);
      }
      if (this.failures === MAX_READ_FAILURES) {
        this.onGiveUp(`reading the output failed ${MAX_READ_FAILURES} times in a row (${message})`);
      }
      return false;
    }
    if (this.closed) {
      return false;
    }
    this.failures = 0;
    for (const text of snapshot.notices?.slice(this.noticesSeen) ?? []) {
      this.note(text);
    }
    this.noticesSeen = Math.max(this.noticesSeen, snapshot.notices?.length ?? 0);
    const increment = sinceByte !== undefined && snapshot.fromByte !== undefined;
    this.lastSnapshotChars = increment ? 0 : snapshot.output.length;
    const exited = Boolean(snapshot.exitStatus);
    if (this.log.appendDelta(this.delta.next(snapshot, sinceByte), exited) > 0) {
      this.onOutput();
    }
    return exited;
  }
}

/** Bytes at the end of `bytes` that start a character without finishing it (0 to 3). */
function cutCharacterBytes(bytes: Uint8Array): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 4); i--) {
    const byte = bytes[i]!;
    if ((byte & 0xc0) !== 0x80) {
      const length = byte < 0x80 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
      return i + length > bytes.length ? bytes.length - i : 0;
    }
  }
  return 0;
}
