import { describeContainment, describeSandbox, TerminalHost } from "acp-terminal";
import { answerLinesOf } from "../ask/answer-lines.js";
import { cliApprovalPolicy } from "../ask/approval.js";
import { QuestionQueue, type ChoiceIo } from "../ask/choose.js";
import type { PermissionAnswer, PermissionAsk } from "../ask/permission-ask.js";
import { decidePermission, type PermissionMode } from "../ask/permission.js";
import type { PermissionRules } from "../ask/permission-rules.js";
import { containmentOption, type RunOptions } from "../command/args.js";
import { hostSandbox } from "../command/sandbox-host.js";
import type { Renderer } from "../view/renderer.js";
import { ClientFiles } from "./client-files.js";
import { McpToolsOffer } from "./mcp-tools-offer.js";
import { SandboxReach, scopedLine } from "./sandbox-reach.js";

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
  /** The agent's file requests, confined to the session's cwd (and `--fs-allow`), writes approved. */
  files: ClientFiles;
  /** A person is at the TTY: a terminal login can run there. */
  terminalLogin: boolean;
}

/**
 * The CLI's side, under one policy: `--yes`, else a TTY question (one at a time, the view paused;
 * the signal of `questionsEnd()` aborts a pending one), else refusal, for the host's commands and the agent's file
 * writes (`--allow` patterns first) as for permission requests.
 */
export function clientSide(
  options: RunOptions,
  io: ConversationIo,
  view: Renderer,
  hostsTerminals: boolean,
  questionsEnd: () => AbortSignal,
): ClientSide {
  const mode = permissionMode(options, io);
  const questions = new QuestionQueue();
  // The turn's signal: each turn's questions end with it (a Ctrl-C ends those of its turn only).
  const ttyIo: ChoiceIo = {
    input: io.stdin,
    output: io.stderr,
    get signal() {
      return questionsEnd();
    },
  };
  if (mode === "ask") {
    answerLinesOf(io.stdin); // from now on: an answer typed before its question is ignored
  }
  // One policy for commands and file writes: "allow for the rest of this session" covers both.
  const policy = cliApprovalPolicy(mode, options.approval, ttyIo, questions, view);
  const host =
    hostsTerminals || options.mcpTools === true
      ? new TerminalHost({
          ...(options.on !== undefined ? { on: options.on } : {}),
          pty: options.pty,
          cwd: options.cwd,
          sandbox: hostSandbox(options.approval, options.cwd),
          authorize: policy,
          containment: containmentOption(options),
          maxTerminalsPerSession: options.maxTerminals,
          maxTerminals: options.maxTotalTerminals,
        })
      : undefined;
  // The host's remarks about a command (where it ran was lost) are beside its output, not in it.
  host?.on("notice", ({ terminalId, text }) => view.notice(`${terminalId}: ${text}`));
  const reach = sayWhatConfines(options, host, hostsTerminals, view);
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
  const rules = permissionRules(options);
  const askPermission = (request: PermissionAsk): Promise<PermissionAnswer> =>
    questions.one(async () => {
      if (request.subject?.command !== undefined) {
        reach.agentRunsCommand();
      }
      view.pause();
      const answer = await decidePermission(
        request,
        mode,
        { ...ttyIo, notice: (message) => view.notice(message) },
        request.details,
        rules,
      ).finally(() => view.resume());
      view.permission?.({
        toolCallId: request.toolCall.toolCallId,
        title: request.toolCall.title ?? undefined,
        options: request.options.map(({ optionId, name, kind }) => ({ optionId, name, kind })),
        ...answer.outcome,
      });
      return answer;
    });
  const files = new ClientFiles({
    cwd: options.cwd,
    allowed: options.session?.fsAllow ?? [],
    policy,
    sandbox: options.approval.sandbox,
  });
  const terminalLogin = io.stdin.isTTY === true && io.stderr.isTTY === true;
  return { host, mcpTools, askPermission, files, terminalLogin };
}

/** `yes` (--yes), `ask` when stdin and stderr are a TTY to ask on, else `deny`. */
function permissionMode(options: RunOptions, io: ConversationIo): PermissionMode {
  if (options.yes) {
    return "yes";
  }
  return io.stdin.isTTY === true && io.stderr.isTTY === true ? "ask" : "deny";
}

/**
 * What confines the agent's commands, said at start: with --verbose, the containment and sandbox
 * of acp-terminal's terminals (the sandbox line scoped to them); and, where the agent is known to
 * run its commands itself, that --sandbox cannot reach those (else said at the first one: the
 * SandboxReach returned).
 */
function sayWhatConfines(
  options: RunOptions,
  host: TerminalHost | undefined,
  hostsTerminals: boolean,
  view: Renderer,
): SandboxReach {
  if (host !== undefined && options.verbose) {
    if (hostsTerminals) {
      view.notice(`acp-terminal: ${scopedLine(describeContainment(host.containment))}`);
    }
    view.notice(`acp-terminal: ${scopedLine(describeSandbox(host.sandbox), host.sandbox.mode)}`);
  }
  const reach = new SandboxReach(options.approval.sandbox, (message) => view.notice(message));
  if (options.ownCommands !== undefined) {
    reach.known(options.ownCommands);
  } else if (!hostsTerminals) {
    reach.known("a v2 agent"); // it owns its terminals: only --mcp-tools' run in acp-terminal's
  }
  return reach;
}

/** The rules the agent's permission requests meet before the mode decides (permission-rules.ts). */
function permissionRules(options: RunOptions): PermissionRules {
  const policy = options.permissions?.policy;
  return {
    allow: [...options.approval.allow, ...(policy?.allow ?? [])],
    allowAnywhere: options.approval.allowAnywhere === true,
    approveReads: options.permissions?.approveReads === true,
    denyAll: options.permissions?.denyAll === true,
    policy,
    sessionCwd: options.cwd,
  };
}
