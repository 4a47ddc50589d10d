import type { RunSnapshot } from "../model/run-events.js";
import { clampOption } from "./terminal-fields.js";
import type { TerminalUpdateSender } from "./wire.js";

export interface TerminalPublisherOptions {
  /** Sends one `session/update` to the client. */
  send: TerminalUpdateSender;
  /** Which runs to publish (e.g. only the sessions of v2 connections). Default: every run. */
  publishes?: (run: RunSnapshot) => boolean;
  /** Largest `terminal_output_chunk`, in output bytes before base64. Default 16 KiB (64..1 MiB). */
  maxChunkBytes?: number;
  /** Output is held this long so that bursts go out as one chunk. Default 25 ms (0..1000). */
  coalesceMs?: number;
  /**
   * Base64 bytes waiting to be sent (the client reads slower than commands write). Past this, a
   * terminal's pending chunks are dropped and one authoritative `output` snapshot replaces them.
   * Default 1 MiB.
   */
  maxBacklogBytes?: number;
  /** Largest `output` snapshot (replay, catching up), in bytes: the tail of the run's retained output. Default 64 KiB. */
  snapshotBytes?: number;
  /** Terminals remembered for replay and cancel; the oldest exited ones are forgotten past it. Default 1000. */
  maxTerminals?: number;
  /** Where a failed send is reported (default: stderr). Sends are never retried. */
  onError?: (what: string, error: unknown) => void;
}

/** The publisher's bounds, each defaulted and clamped to its range. */
export interface PublisherLimits {
  maxChunkBytes: number;
  coalesceMs: number;
  maxBacklogBytes: number;
  snapshotBytes: number;
  maxTerminals: number;
}

export function publisherLimits(options: TerminalPublisherOptions): PublisherLimits {
  return {
    maxChunkBytes: clampOption(options.maxChunkBytes, 16 * 1024, 64, 1024 * 1024),
    coalesceMs: clampOption(options.coalesceMs, 25, 0, 1000),
    maxBacklogBytes: clampOption(options.maxBacklogBytes, 1024 * 1024, 1024, 64 * 1024 * 1024),
    snapshotBytes: clampOption(options.snapshotBytes, 64 * 1024, 64, 16 * 1024 * 1024),
    maxTerminals: clampOption(options.maxTerminals, 1000, 1, 100_000),
  };
}
