import { describeContainment, describeSandbox, TerminalHost } from "acp-terminal";
import { answerLinesOf } from "../ask/answer-lines.js";
import { cliApprovalPolicy } from "../ask/approval.js";
import { QuestionQueue, type ChoiceIo } from "../ask/choose.js";
import type { PermissionAnswer, PermissionAsk } from "../ask/permission-ask.js";
import { decidePermission, type PermissionMode } from "../ask/permission.js";
import { containmentOption, type RunOptions } from "../command/args.js";
import { hostSandbox } from "../command/sandbox-host.js";
import type { Renderer } from "../view/renderer.js";
import { McpToolsOffer } from "./mcp-tools-offer.js";

/** Where questions are asked: a person's TTY when both are one. */
export interface ConversationIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** The CLI's version, for `clientInfo` and the MCP tools. */
  version: string;
}

/** What the CLI brings to a conversation besides the view: its terminals and the user's answers. */
export interface ClientSide {
  /** The CLI's own host: when the driver hosts the agent's terminals, or under `--mcp-tools`. */
  host: TerminalHost | undefined;
  mcpTools: McpToolsOffer | undefined;
  askPermission(request: PermissionAsk): Promise<PermissionAnswer>;
}

/**
 * The CLI's side, under one policy: `--yes`, else a TTY question (one at a time, the view paused;
 * `questionsEnd` aborts a pending one), else refusal, for the host's commands (`--allow` patterns
 * first) as for permission requests.
 */
export function clientSide(
  options: RunOptions,
  io: ConversationIo,
  view: Renderer,
  hostsTerminals: boolean,
  questionsEnd: AbortSignal,
): ClientSide {
  const mode = permissionMode(options, io);
  const questions = new QuestionQueue();
  const ttyIo: ChoiceIo = { input: io.stdin, output: io.stderr, signal: questionsEnd };
  if (mode === "ask") {
    answerLinesOf(io.stdin); // from now on: an answer typed before its question is ignored
  }
  const host =
    hostsTerminals || options.mcpTools === true
      ? new TerminalHost({
          ...(options.on !== undefined ? { on: options.on } : {}),
          pty: options.pty,
          cwd: options.cwd,
          sandbox: hostSandbox(options.approval, options.cwd),
          authorize: cliApprovalPolicy(mode, options.allow, ttyIo, questions, view),
          containment: containmentOption(options),
          maxTerminalsPerSession: options.maxTerminals,
          maxTerminals: options.maxTotalTerminals,
        })
      : undefined;
  if (host !== undefined && options.verbose) {
    if (hostsTerminals) {
      view.notice(`acp-terminal: ${describeContainment(host.containment)}`);
    }
    view.notice(`acp-terminal: ${describeSandbox(host.sandbox)}`);
  }
  const mcpTools =
    options.mcpTools === true && host !== undefined
      ? new McpToolsOffer({
          on: options.on,
          host,
          cwd: options.cwd,
          approval: options.approval,
          stdinWritable: mode !== "deny",
          version: io.version,
        })
      : undefined;
  const askPermission = (request: PermissionAsk): Promise<PermissionAnswer> =>
    questions.one(async () => {
      view.pause();
      try {
        return await decidePermission(
          request,
          mode,
          { ...ttyIo, notice: (message) => view.notice(message) },
          request.details,
        );
      } finally {
        view.resume();
      }
    });
  return { host, mcpTools, askPermission };
}

/** `yes` (--yes), `ask` when stdin and stderr are a TTY to ask on, else `deny`. */
function permissionMode(options: RunOptions, io: ConversationIo): PermissionMode {
  if (options.yes) {
    return "yes";
  }
  return io.stdin.isTTY === true && io.stderr.isTTY === true ? "ask" : "deny";
}
