/**
 * The contract of the transport-free TerminalHost. The ACP binding, the CLI and the agent-side
 * local provider all program against these types; change them only together with their users.
 */

import type {
  BaseEnvironment,
  ContainmentMode,
  EnvVariable,
  ExitStatus,
  ShellMode,
  TerminalOwner,
} from "../core/types.js";
import type { Executor } from "../executors/types.js";

import type { SandboxMode, SandboxOptions } from "../sandbox/sandbox-options.js";

export type { SandboxMode, SandboxOptions };
export type { BaseEnvironment, ContainmentMode, EnvVariable, ExitStatus, ShellMode, TerminalOwner };

export interface PtyOptions {
  cols?: number | undefined;
  rows?: number | undefined;
}

/** `terminal/create` params plus our `_meta["acp-terminal"]` extensions, already validated. */
export interface CreateTerminalParams {
  command: string;
  args?: string[] | null;
  env?: EnvVariable[] | null;
  /** Absolute; omitted means the session's cwd given by the embedding client, else the host's. */
  cwd?: string | null;
  outputByteLimit?: number | null;
  /** `true` or sizes: run in a PTY. Omitted: the host's default backend. */
  pty?: boolean | PtyOptions;
  /** Keep stdin open for `write`. Default false: commands that read stdin see end-of-file. */
  stdin?: boolean;
}

export interface TerminalOutputSnapshot {
  output: string;
  truncated: boolean;
  /** Present once the command has exited and its output is drained. */
  exitStatus?: ExitStatus;
  /**
   * Bytes the command has written since it started, up to the end of `output` (cursor extension):
   * while it runs, an incomplete character at the end is counted once it completes.
   */
  totalBytes: number;
  /** Bytes dropped from the beginning to honour the limit (cursor extension). */
  droppedBytes: number;
  /**
   * Read with `sinceByte` (exact-increments extension): the stream offset `output` starts at,
   * `max(sinceByte, droppedBytes)` moved to a character boundary; `fromByte - sinceByte` bytes were missed.
   */
  fromByte?: number;
  /**
   * The host's remarks about the command, oldest first (at most 8): where it ran was lost, say.
   * Never part of `output`, which holds only the command's bytes. Absent when there are none.
   */
  notices?: string[];
}

export type TerminalState = "running" | "exited" | "released";

export interface TerminalInfo {
  terminalId: string;
  owner: TerminalOwner;
  command: string;
  /** The request's `args` (`[]` when it sent none: see `argsGiven`). */
  args: string[];
  /** Whether the request sent `args` (then `command` runs with exactly them, no shell). */
  argsGiven: boolean;
  /** True when `command` is a command line run through `<shell> -c` (`argv` names the shell). */
  shell: boolean;
  /** What is executed: `[command, ...args]`, or `[shell, "-c", command]` for a command line. */
  argv: string[];
  /** The variables the request set on top of the host's environment (empty when it set none). */
  env: EnvVariable[];
  /** The bytes of output the host keeps for it: the request's limit, or the default, capped. */
  outputByteLimit: number;
  cwd: string;
  pty: boolean;
  /** The command's pid, which is also its process-group id. */
  pid?: number;
  /** How this terminal's descendants are kept from outliving it (a host always says). */
  containment?: ContainmentMode;
  state: TerminalState;
  exitStatus?: ExitStatus;
  startedAt: number;
}

/** The command an authorization is about, as the host will run it. */
export interface AuthorizeCommand {
  owner: TerminalOwner;
  command: string;
  args: string[];
  /** Where it runs (resolved: the request's, else the session's, else the host's). */
  cwd: string;
  /** True when the command line will run through a shell. */
  shell: boolean;
  /** The variables the request set on top of the host's environment (empty when it set none). */
  env: EnvVariable[];
  /**
   * The program that runs, resolved as exec will (through `cwd` when the name has a slash, else on
   * PATH's absolute entries) to an absolute path; for a command line run by the shell, the line's
   * first word resolved so. Null when it is not found, or is not a plain word of the line.
   */
  program: string | null;
  /** What is executed: `[command, ...args]`, or `[shell, "-c", line]` for a command line. */
  argv: string[];
  /** The sandbox it runs in (see TerminalHostOptions.sandbox). */
  sandbox: SandboxMode;
  /**
   * The session's cwd given by the embedding client, else the host's `cwd`, else the process's:
   * where allow rules apply (a rule approves only what runs under it, unless told otherwise).
   */
  sessionCwd: string;
}

/**
 * What the `authorize` hook is asked about: starting a command (`create`), writing to its stdin
 * (`write`), or sending it a signal other than a plain kill (`signal`). Writes and signals carry
 * the command of the terminal they reach.
 */
export type AuthorizeRequest =
  | (AuthorizeCommand & { action: "create" })
  | (AuthorizeCommand & { action: "write"; terminalId: string; data: Uint8Array; eof: boolean })
  | (AuthorizeCommand & { action: "signal"; terminalId: string; signal: string });

/** What an approval policy decides: the host's requests, and a client's file writes. */
export type ApprovalRequest = AuthorizeRequest | AuthorizeFileWrite;

/**
 * A client's file written for the agent (ACP `fs/write_text_file`), asked like a command: the
 * same policy, question and "allow for the rest of this session". Only an allow pattern that
 * starts with `write:` matches one (see allow-pattern.ts).
 */
export interface AuthorizeFileWrite {
  action: "write_file";
  owner: TerminalOwner;
  /** The file, absolute: its real path (every symlink on the way resolved). */
  path: string;
  /** The session's cwd: a `write:` pattern's relative path is read from there. */
  cwd: string;
  /** Bytes the file will hold. */
  byteLength: number;
  /** The file exists: the write replaces it. */
  exists: boolean;
  /**
   * Why the file is protected (inside `.git`, a dotfile at the top of the cwd or home: see
   * sandbox/protected-paths.ts): no allow pattern approves such a write, only a person.
   */
  protected?: string | undefined;
}

/**
 * What the `authorize` hook answers: `true` allows; `false` or a reason string denies; a grant
 * allows a `create` confined, or with variables set on top of its environment (how an allow
 * pattern for git turns off what a repository's config could run: see approval/program-rules.ts).
 */
export type AuthorizeVerdict = boolean | string | AuthorizeGrant;

export interface AuthorizeGrant {
  allow: true;
  /** Variables set on top of the command's environment. */
  env?: readonly EnvVariable[];
  /**
   * Run it confined, whatever the host's sandbox: in bubblewrap's read-only sandbox (nothing
   * writable but a private /tmp, so neither `.git` nor the home directory), without network. What
   * an allow rule approves runs so (approval/confinement.ts). Where it cannot be had (no
   * bubblewrap, a command run elsewhere) the create fails `spawn_failed` saying why.
   */
  confined?: boolean;
}

export interface TerminalHostOptions {
  /** How a command without `args` is run. Default `"auto"`. */
  shell?: ShellMode;
  /** Limit applied when a request omits `outputByteLimit`. Default 1 MiB. */
  defaultOutputByteLimit?: number;
  /** Ceiling on any `outputByteLimit`; also bounded by the peer's message limit. Default 8 MiB. */
  maxOutputByteLimit?: number;
  /** SIGTERM → SIGKILL grace. Default 1000 ms. */
  killGraceMs?: number;
  /** How long to wait for output pipes after the process exits (grandchild holding them). Default 250 ms. */
  exitDrainGraceMs?: number;
  /** Live (not released) terminals per session. Default 64. */
  maxTerminalsPerSession?: number;
  /** Live terminals in the whole host. Default 1024. */
  maxTerminals?: number;
  /** Default cwd when neither the request nor the session gives one. Default `process.cwd()`. */
  cwd?: string;
  /** Base environment: inherit the host's, start empty, or compute it. Default `"inherit"`. */
  env?: BaseEnvironment;
  /** Run every terminal in a PTY unless the request says otherwise. Default false. */
  pty?: boolean;
  /**
   * `"auto"` (default): commands start through a launcher that keeps each one's whole process
   * tree (`"process-tree"`, with the machine's pids) where the system allows it (Linux, perl;
   * found out once), else process-group kill. `"pid-namespace"`: each terminal in its own PID
   * namespace where the system allows it, else as `"auto"`; its commands see namespace pids
   * (`$$`, `$!`, `ps`), which mean nothing to the agent or to other terminals. `"off"`:
   * process-group kill only, commands forked by this process. All with a watchdog that kills what
   * is left when the host dies.
   */
  containment?: "auto" | "pid-namespace" | "off";
  /**
   * Bytes written to a terminal's stdin that may wait for the command to read them; a write
   * beyond that fails with "limit_reached" instead of buffering without bound. Default 1 MiB.
   */
  maxPendingStdinBytes?: number;
  /**
   * Asked before every spawn, every stdin write, and every signal (`signal`, or `kill` with a
   * chosen signal other than SIGTERM/SIGKILL); return `true` (or a grant, for a create) to allow,
   * false or a reason string to deny. `createApprovalPolicy` builds one.
   */
  authorize?: (request: AuthorizeRequest) => Promise<AuthorizeVerdict> | AuthorizeVerdict;
  /**
   * Where commands may write: `"read-only"` (nowhere but a private /tmp), `"workspace-write"`
   * (the workspace too, its `.git` excepted) or `"off"` (default); sandboxed commands get no
   * network unless `network: true`. Enforced by bubblewrap; where it cannot be had, `sandbox`
   * says `"unavailable"` and every create fails `spawn_failed` saying why: nothing runs outside a
   * sandbox that was asked for. The workspace defaults to `cwd`, else `process.cwd()`.
   */
  sandbox?: SandboxMode | SandboxOptions;
  /**
   * Where commands run: `"local"` (default), `"ssh://[user@]host[:port]"` (resolved as `ssh`
   * resolves it), `"docker://CONTAINER"`, `"docker-image://IMAGE[?workspace=DIR[:MOUNT]]"` (a
   * container per session), or an Executor. One made from a string is disposed with the host.
   * Paths (cwd) are the other machine's; its environment is the base of the commands'. Allow
   * patterns never match a command run elsewhere (its program cannot be resolved here), and the
   * sandbox is for local commands only: `sandbox` other than "off" with `on` is refused.
   */
  on?: string | Executor;
}

export interface TerminalOutputEvent {
  terminalId: string;
  owner: TerminalOwner;
  /** Raw bytes as the command wrote them (PTY: with escape sequences). */
  data: Uint8Array;
}

/** The host noted something about a terminal's command (see `TerminalOutputSnapshot.notices`). */
export interface TerminalNoticeEvent {
  terminalId: string;
  owner: TerminalOwner;
  text: string;
}

/**
 * Bytes were added to a terminal's buffer. Unlike `output`, no copy of them comes with it: `data`
 * is a view of the backend's read buffer, and the event object itself is the terminal's one,
 * filled again for its next chunk: both are valid only while the listener runs (copy what you
 * keep). For a view that sees every chunk without an allocation per chunk.
 */
export interface TerminalWrittenEvent {
  terminalId: string;
  owner: TerminalOwner;
  /** Bytes the command has written in all, this chunk included. */
  totalBytes: number;
  /** The chunk, as a view valid only during the call. */
  data: Uint8Array;
}

export interface TerminalExitEvent {
  terminalId: string;
  owner: TerminalOwner;
  exitStatus: ExitStatus;
}

export interface TerminalReleaseEvent {
  terminalId: string;
  owner: TerminalOwner;
}

export interface TerminalCreateEvent {
  terminalId: string;
  info: TerminalInfo;
}

export interface TerminalHostEvents {
  create: [TerminalCreateEvent];
  output: [TerminalOutputEvent];
  notice: [TerminalNoticeEvent];
  written: [TerminalWrittenEvent];
  exit: [TerminalExitEvent];
  release: [TerminalReleaseEvent];
}

export interface WriteOptions {
  /** Close stdin after this write. */
  eof?: boolean;
}

export interface OutputOptions {
  /**
   * Exact increments: return only the text from this stream offset on (usually the `totalBytes`
   * of the previous read); the snapshot then carries `fromByte`. A non-negative integer, at most
   * the current `totalBytes`.
   */
  sinceByte?: number;
}
