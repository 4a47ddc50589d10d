import { createInterface } from "node:readline";
import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";

/** `yes`: allow (--yes); `ask`: ask the person at the TTY; `deny`: reject and say how to allow. */
export type PermissionMode = "yes" | "ask" | "deny";

export interface PermissionIo {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  notice(message: string): void;
  /** Aborts when the turn is cancelled: a pending question is answered `cancelled`. */
  signal: AbortSignal;
}

const CANCELLED: RequestPermissionResponse = { outcome: { outcome: "cancelled" } };

function select(option: PermissionOption | undefined): RequestPermissionResponse {
  return option === undefined ? CANCELLED : { outcome: { outcome: "selected", optionId: option.optionId } };
}

const isAllow = (option: PermissionOption) => option.kind === "allow_once" || option.kind === "allow_always";
const isReject = (option: PermissionOption) => option.kind === "reject_once" || option.kind === "reject_always";

function describe(request: RequestPermissionRequest): string {
  return request.toolCall.title ? `"${request.toolCall.title}"` : `tool call ${request.toolCall.toolCallId}`;
}

export async function decidePermission(
  request: RequestPermissionRequest,
  mode: PermissionMode,
  io: PermissionIo,
): Promise<RequestPermissionResponse> {
  if (io.signal.aborted) return CANCELLED;
  if (mode === "yes") return select(request.options.find(isAllow));
  if (mode === "deny") {
    io.notice(`Permission denied for ${describe(request)}: pass --yes to allow the agent's requests, or run on a terminal to be asked.`);
    return select(request.options.find(isReject));
  }
  return ask(request, io);
}

async function ask(request: RequestPermissionRequest, io: PermissionIo): Promise<RequestPermissionResponse> {
  const rl = createInterface({ input: io.input, terminal: false });
  // Ctrl-C while we wait ends the question: the turn is being cancelled.
  const onAbort = () => rl.close();
  io.signal.addEventListener("abort", onAbort, { once: true });
  const count = request.options.length;
  const promptLine = `Choose 1-${count} (Enter rejects): `;
  try {
    const list = request.options.map((option, i) => `  ${i + 1}) ${option.name} (${option.kind})`).join("\n");
    io.output.write(`The agent asks permission for ${describe(request)}:\n${list}\n${promptLine}`);
    // Lines are buffered by the iterator, so answers typed ahead are not lost.
    for await (const raw of rl) {
      const answer = raw.trim();
      if (answer === "") return select(request.options.find(isReject));
      const index = Number(answer);
      if (Number.isInteger(index) && index >= 1 && index <= count) return select(request.options[index - 1]);
      io.output.write(`Expected a number from 1 to ${count}, received ${JSON.stringify(answer)}\n${promptLine}`);
    }
    return CANCELLED;
  } finally {
    io.signal.removeEventListener("abort", onAbort);
    rl.close();
  }
}
