import { messageOf } from "../core/thrown.js";
import { isSandboxMode, SANDBOX_MODES, type SandboxMode } from "../sandbox/sandbox-options.js";
import { parseAllowPattern } from "./allow-pattern.js";
import type { ApprovalPolicyOptions } from "./approval-policy.js";

/**
 * What a person decides when starting a host, in the words `acp-terminal run`, `acp-terminal mcp`
 * and an embedder's `createApprovalPolicy` + `TerminalHost({ sandbox })` share: allow everything
 * (`--yes`), the commands patterns approve (`--allow`), and the sandbox approved commands run in.
 */
export interface ApprovalFlags {
  yes: boolean;
  allow: readonly string[];
  /**
   * `--allow-anywhere`: rules apply wherever a command runs, not only under the session's cwd.
   * Default false.
   */
  allowAnywhere?: boolean;
  sandbox: SandboxMode;
  /** `--sandbox-network`: sandboxed commands may use the network. */
  sandboxNetwork: boolean;
}

/** The flags' `parseArgs` options, the same in both commands. */
export const APPROVAL_FLAG_OPTIONS = {
  yes: { type: "boolean" as const, short: "y", default: false },
  allow: { type: "string" as const, multiple: true as const, default: [] as string[] },
  "allow-anywhere": { type: "boolean" as const, default: false },
  sandbox: { type: "string" as const, default: "off" },
  "sandbox-network": { type: "boolean" as const, default: false },
};

const FLAG_HELP: readonly (readonly [string, string])[] = [
  ["--yes, -y", "allow every command, stdin write and signal (and permission request)"],
  [
    "--allow PATTERN",
    "approve starting the commands PATTERN matches, e.g. 'git status' (repeatable; the program's " +
      "name or absolute path, then words where * is any characters, a last * any further words; " +
      "a line with shell syntax or agent-set env never matches; git only for status, diff, log " +
      "and show with read-only options). What a pattern approves runs in a read-only sandbox " +
      "without network (bubblewrap; without it patterns approve nothing), and only under the " +
      "session's directory",
  ],
  [
    "--allow-anywhere",
    "patterns apply in any directory the agent names, not only under the session's",
  ],
  [
    "--sandbox MODE",
    "read-only (commands write nothing but a private /tmp), workspace-write (and the workspace, " +
      "not its .git) or off (default); bubblewrap, no network",
  ],
  ["--sandbox-network", "let sandboxed commands use the network"],
];

/** The flags' lines in a command's usage, descriptions from `column`, wrapped at 100 columns. */
export function approvalFlagsHelp(column: number): string {
  const lines: string[] = [];
  for (const [flag, text] of FLAG_HELP) {
    let line = `  ${flag}`.padEnd(column);
    for (const word of text.split(" ")) {
      if (line.length + word.length + 1 > 100 && line.trim() !== flag) {
        lines.push(line.trimEnd());
        line = " ".repeat(column);
      }
      line += line.endsWith(" ") ? word : ` ${word}`;
    }
    lines.push(line.trimEnd());
  }
  return lines.join("\n");
}

/** The flags, checked: every pattern parses, the mode is known; else the message naming the flag. */
export function approvalFlags(values: {
  yes: boolean;
  allow: readonly string[];
  "allow-anywhere"?: boolean;
  sandbox: string;
  "sandbox-network": boolean;
}): ApprovalFlags | string {
  for (const pattern of values.allow) {
    try {
      parseAllowPattern(pattern);
    } catch (error) {
      return `Invalid --allow: ${messageOf(error).replace(/^Invalid allow pattern /, "")}`;
    }
  }
  if (!isSandboxMode(values.sandbox)) {
    return `Invalid --sandbox: expected one of ${SANDBOX_MODES.join(", ")}, received ${JSON.stringify(values.sandbox.slice(0, 100))}`;
  }
  const allowAnywhere = values["allow-anywhere"] === true;
  if (allowAnywhere && values.allow.length === 0) {
    return "--allow-anywhere needs --allow: it says where the patterns apply";
  }
  if (values["sandbox-network"] && values.sandbox === "off") {
    return "--sandbox-network needs --sandbox read-only or workspace-write: without a sandbox commands have the network anyway";
  }
  return {
    yes: values.yes,
    allow: [...values.allow],
    allowAnywhere,
    sandbox: values.sandbox,
    sandboxNetwork: values["sandbox-network"],
  };
}

/** The flags as arguments again, to start another host with the same decision (`acp-terminal mcp`). */
export function approvalFlagArgs(flags: ApprovalFlags): string[] {
  return [
    ...(flags.yes ? ["--yes"] : flags.allow.flatMap((pattern) => ["--allow", pattern])),
    ...(!flags.yes && flags.allowAnywhere === true ? ["--allow-anywhere"] : []),
    ...(flags.sandbox === "off" ? [] : ["--sandbox", flags.sandbox]),
    ...(flags.sandboxNetwork ? ["--sandbox-network"] : []),
  ];
}

/** The policy options the flags mean, with who is asked (if anyone) and the reason a refusal gives. */
export function approvalPolicyOptions(
  flags: ApprovalFlags,
  rest: Pick<ApprovalPolicyOptions, "ask" | "refusal" | "notAsked">,
): ApprovalPolicyOptions {
  return {
    allowAll: flags.yes,
    allow: flags.allow,
    allowAnywhere: flags.allowAnywhere === true,
    ...rest,
  };
}

/** What runs, in words: for instructions, listening lines and `--verbose`. */
export function describeApprovalFlags(flags: ApprovalFlags): string {
  const what = flags.yes
    ? "every command (--yes)"
    : flags.allow.length > 0
      ? `the commands these --allow patterns approve${flags.allowAnywhere === true ? " anywhere" : " under the session's directory"}, confined (read-only sandbox, no network): ${flags.allow.join(", ")}`
      : "no command (pass --yes or --allow)";
  const where =
    flags.sandbox === "off"
      ? "no sandbox"
      : `in a ${flags.sandbox} sandbox${flags.sandboxNetwork ? " with network" : " without network"}`;
  return `${what}; ${where}`;
}
