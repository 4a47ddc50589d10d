import type { Renderer, RunResult, TurnShown } from "../view/renderer.js";
import type { Output } from "./output.js";

/** Characters of a final message held (its newest, should an agent stream without end). */
const MAX_MESSAGE_CHARS = 4 * 1024 * 1024;

/**
 * `--quiet`: stdout gets the agent's final message of each turn (the text after its last tool
 * call) and nothing else; stderr gets the notices and the line that ends a failed run, not the
 * summary. Text the agent sends outside a turn (a turn of its own) is printed at the end.
 */
export class QuietRenderer implements Renderer {
  #message = "";
  #failed = false;

  constructor(
    private readonly out: Output,
    private readonly err: Output,
  ) {}

  messageText(text: string): void {
    this.#message = (this.#message + text).slice(-MAX_MESSAGE_CHARS);
  }

  toolCallStarted(): void {
    this.#message = "";
  }

  turnEnded(turn: TurnShown): void {
    if (turn.error === undefined) {
      this.#flush();
    }
    this.#message = "";
  }

  notice(message: string): void {
    this.err.write(`${message}\n`);
  }

  failed(error: string): void {
    this.#failed = true;
    this.err.write(`${error}\n`);
  }

  finish(result: RunResult): void {
    this.#flush();
    if (result.error !== undefined && !this.#failed) {
      this.err.write(`${result.error}\n`);
    }
  }

  #flush(): void {
    const text = this.#message.trim();
    this.#message = "";
    if (text !== "") {
      this.out.write(`${text}\n`);
    }
  }

  rawUpdate(): void {
    // Not printed: --quiet prints the final message only.
  }
  thoughtText(): void {
    // Not printed: --quiet prints the final message only.
  }
  plan(): void {
    // Not printed: --quiet prints the final message only.
  }
  toolCallUpdated(): void {
    // Not printed: --quiet prints the final message only.
  }
  terminalCreated(): void {
    // Not printed: --quiet prints the final message only.
  }
  terminalBytes(): void {
    // Only the final message is printed.
  }

  terminalOutput(): void {
    // Not printed: --quiet prints the final message only.
  }
  terminalExited(): void {
    // Not printed: --quiet prints the final message only.
  }
  terminalReleased(): void {
    // Not printed: --quiet prints the final message only.
  }
  agentTerminalCreated(): void {
    // Not printed: --quiet prints the final message only.
  }
  agentTerminalChanged(): void {
    // Not printed: --quiet prints the final message only.
  }
  agentTerminalReplaced(): void {
    // Not printed: --quiet prints the final message only.
  }
  background(): void {
    // Not printed: --quiet prints the final message only.
  }
  pause(): void {
    // Not printed: --quiet prints the final message only.
  }
  resume(): void {
    // Not printed: --quiet prints the final message only.
  }
}
