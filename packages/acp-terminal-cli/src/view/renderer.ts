import type { ExitStatus, TerminalInfo } from "acp-terminal";
import type { OutputReader } from "acp-terminal";
import type { AgentTerminal } from "./agent-terminal.js";
import type { ProtocolName } from "./protocol.js";

/** How often output that keeps changing is looked at, at most: once a frame (20 times a second). */
export const FRAME_MS = 50;

export type { ProtocolName } from "./protocol.js";

/**
 * A change to a file a tool call shows: a patch as the agent wrote it (a git patch, codex's
 * `*** Begin Patch`), or the text before (null: a new file) and after.
 */
export type DiffShown =
  { path: string; patch: string } | { path: string; oldText: string | null; newText: string };

/** The content of a tool call as shown: its text items joined, the terminals it embeds, its diffs. */
export interface ToolCallContentShown {
  /** Undefined when the content has no text item. */
  text: string | undefined;
  terminalIds: string[];
  /** The file changes it shows (its diff items, else what its raw input says it changes). */
  diffs?: DiffShown[];
}

/** A tool call as one event tells it; a field left out did not change. */
export interface ToolCallShown {
  toolCallId: string;
  title?: string | undefined;
  /** `pending`, `in_progress`, `completed`, `failed`, or another a version adds (`cancelled`, `paused`). */
  status?: string | undefined;
  /** The whole content, when the event gives it: it replaces what came before. */
  content?: ToolCallContentShown | undefined;
  /** The edit its raw input describes (claude's Edit and Write), shown when its content has no diff. */
  inputDiff?: DiffShown | undefined;
}

/** One entry of the agent's plan. */
export interface PlanItem {
  content: string;
  status: string;
  priority?: string;
}

/** Work the agent lists as running in the background, as it last listed it. */
export interface BackgroundItem {
  type: string;
  terminalId?: string;
  toolCallId?: string;
  /** What to call it: the terminal's command or the tool call's title, when known. */
  label?: string;
}

/** A terminal shown during the run, for the summary. */
export interface TerminalRecord {
  terminalId: string;
  command: string;
  exitStatus?: ExitStatus;
}

/** What the agent told of itself in `initialize`, as `--json` writes it. */
export interface InitializeShown {
  protocol: ProtocolName;
  dialect: string;
  protocolVersion: unknown;
  agentInfo: unknown;
  capabilities: unknown;
  authMethods: unknown[];
}

/** A permission request and the answer it got. */
export interface PermissionShown {
  toolCallId: string;
  title: string | undefined;
  options: Array<{ optionId: string; name: string; kind: string }>;
  /** `selected` (with the option), or `cancelled`. */
  outcome: string;
  optionId?: string;
}

/** How a turn ended, and the agent's terminals still running then (background work). */
export interface TurnShown {
  stopReason?: string | undefined;
  error?: string | undefined;
  running: number;
}

export interface RunResult {
  exitCode: number;
  stopReason?: string;
  /** One line for the user when the run failed. */
  error?: string;
  elapsedMs: number;
  terminals: TerminalRecord[];
}

/**
 * The view events: what a conversation shows, whatever protocol version its driver speaks. The
 * drivers emit them, the text and JSON renderers consume them; nothing here is a wire type.
 * Terminals come in two kinds, by who runs them: the CLI's own (hosted in its `TerminalHost`,
 * `terminalCreated`) and the agent's, which it reports (`agentTerminal*`, held as `AgentTerminal`s).
 */
export interface Renderer {
  /**
   * A session update as the agent sent it, for a renderer that shows the wire (`--json`); the
   * events below tell the same update's meaning, which the others show.
   */
  rawUpdate(update: unknown, protocol: ProtocolName): void;
  /** It shows `rawUpdate`s (a driver that skips the SDK for bulk output builds them only then). */
  readonly wantsRawUpdates?: boolean;
  /** Text of the agent's message, continuing what came before. */
  messageText(text: string): void;
  /** Text of the agent's reasoning, continuing what came before. */
  thoughtText(text: string): void;
  /** The agent's plan, whole, each time it changes. */
  plan(items: PlanItem[]): void;
  /** A tool call appeared (its status is `pending` unless given). */
  toolCallStarted(call: ToolCallShown & { title: string }): void;
  /** A tool call changed (an update for one never started, or already ended, is ignored). */
  toolCallUpdated(call: ToolCallShown): void;
  /**
   * One of the CLI's own terminals started; `output` is the host's buffer of it (sized by the
   * agent's `outputByteLimit`: what the agent reads, not what a display shows). `screen` (PTY
   * terminals): its output as the host's emulator renders it.
   */
  terminalCreated(info: TerminalInfo, output: OutputReader, screen?: () => string): void;
  /**
   * Every chunk of one of the CLI's own terminals, in order, as it arrives: `data` is a view valid
   * only during the call (keep a copy, or what you derive). A display keeps its own bounded view
   * of the output from these, whatever the agent's buffer drops.
   */
  terminalBytes(terminalId: string, data: Uint8Array): void;
  /** An agent's terminal's output changed (see `AgentTerminal`): once per update at most. */
  terminalOutput(terminalId: string): void;
  terminalExited(terminalId: string, exitStatus: ExitStatus): void;
  /** One of the CLI's own terminals was released (an agent's terminal is never released). */
  terminalReleased(terminalId: string): void;
  /** A terminal the agent runs appeared (rendered through its emulator, `terminal`). */
  agentTerminalCreated(terminal: AgentTerminal): void;
  /** An agent's terminal's command, cwd, size or cancel capability changed after it appeared. */
  agentTerminalChanged(terminal: AgentTerminal): void;
  /** A snapshot replaced an agent's terminal's output; `terminal.output` is the new buffer. */
  agentTerminalReplaced(terminal: AgentTerminal): void;
  /** The agent's list of background work, each time it changes. */
  background(items: BackgroundItem[], protocol: ProtocolName): void;
  /** A line for the user about the run itself (hints, warnings, the error that ended it). */
  notice(message: string): void;
  /**
   * Session-level events: a renderer that does not write them leaves them out. `initialized`:
   * the agent's `initialize` answer; `sessionStarted`: its id, and how (new, load, resume);
   * `turnStarted`/`turnEnded` around each prompt; `permission`: a request and our answer;
   * `failed`: the line that ends the run, said at once (before the teardown, which can take
   * seconds); `finish` does not say it again.
   */
  initialized?(intro: InitializeShown): void;
  sessionStarted?(session: { sessionId: string; how: string }): void;
  turnStarted?(prompt: string): void;
  turnEnded?(turn: TurnShown): void;
  permission?(asked: PermissionShown): void;
  failed?(error: string): void;
  /** The line the person is typing during a turn (queued when entered); "" when none. */
  typed?(text: string): void;
  /** Someone else (a question) writes to the TTY until `resume`: draw nothing live. */
  pause(): void;
  resume(): void;
  finish(result: RunResult): void;
}
