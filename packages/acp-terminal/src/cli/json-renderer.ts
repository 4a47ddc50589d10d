import { TextDecoder } from "node:util";
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { ExitStatus, TerminalInfo } from "../host/types.js";
import type { RunResult } from "./format.js";
import type { Output, Renderer } from "./renderer.js";

/**
 * `--json`: one JSON object per line on stdout and nothing else there. Terminal output is decoded
 * with one streaming decoder per terminal, so a character split across chunks arrives whole.
 * Notices go to stderr, where people look.
 */
export class JsonRenderer implements Renderer {
  private readonly decoders = new Map<string, TextDecoder>();

  constructor(
    private readonly out: Output,
    private readonly err: Output,
  ) {}

  sessionUpdate(update: SessionUpdate): void {
    this.emit({ type: "session_update", update });
  }

  terminalCreated(info: TerminalInfo): void {
    this.decoders.set(info.terminalId, new TextDecoder());
    this.emit({
      type: "terminal",
      event: "create",
      terminalId: info.terminalId,
      command: info.command,
      args: info.args,
      cwd: info.cwd,
      pty: info.pty,
    });
  }

  terminalOutput(terminalId: string, data: Uint8Array): void {
    const text = this.decoder(terminalId).decode(data, { stream: true });
    if (text !== "") this.emit({ type: "terminal", event: "output", terminalId, output: text });
  }

  terminalExited(terminalId: string, exitStatus: ExitStatus): void {
    const rest = this.decoder(terminalId).decode();
    if (rest !== "") this.emit({ type: "terminal", event: "output", terminalId, output: rest });
    this.emit({ type: "terminal", event: "exit", terminalId, exitStatus });
  }

  terminalReleased(terminalId: string): void {
    this.decoders.delete(terminalId);
    this.emit({ type: "terminal", event: "release", terminalId });
  }

  notice(message: string): void {
    this.err.write(`${message}\n`);
  }

  pause(): void {
    // Nothing is drawn in place in JSON mode.
  }

  resume(): void {
    // Nothing is drawn in place in JSON mode.
  }

  finish(result: RunResult): void {
    if (result.error !== undefined) this.err.write(`${result.error}\n`);
    this.emit({
      type: "result",
      stopReason: result.stopReason ?? null,
      exitCode: result.exitCode,
      ...(result.error === undefined ? {} : { error: result.error }),
      elapsedMs: Math.round(result.elapsedMs),
      terminals: result.terminals,
    });
  }

  private decoder(terminalId: string): TextDecoder {
    let decoder = this.decoders.get(terminalId);
    if (decoder === undefined) {
      decoder = new TextDecoder();
      this.decoders.set(terminalId, decoder);
    }
    return decoder;
  }

  private emit(value: Record<string, unknown>): void {
    this.out.write(`${JSON.stringify(value)}\n`);
  }
}
