import type { SandboxMode } from "acp-terminal";

/**
 * Says, once and loudly, that `--sandbox` does not reach the commands the agent runs itself:
 * it confines only what runs in acp-terminal's terminals (v1 `terminal/*`, `--mcp-tools`), while
 * claude-agent-acp, codex-acp and Gemini CLI start their commands in their own process and only
 * ask first (`session/request_permission`). Said at start when that is known (a short name of
 * one of those agents, or a v2 agent without `--mcp-tools`: it owns its terminals), else at the
 * first permission request about a command the agent runs.
 */
export class SandboxReach {
  #said = false;

  constructor(
    private readonly sandbox: SandboxMode,
    private readonly notice: (message: string) => void,
  ) {}

  /** At start: `who` runs its commands itself (a known agent's name, or "a v2 agent"). */
  known(who: string): void {
    this.#say(who);
  }

  /** A permission request about a command the agent runs itself. */
  agentRunsCommand(): void {
    this.#say("the agent");
  }

  #say(who: string): void {
    if (this.#said || this.sandbox === "off") {
      return;
    }
    this.#said = true;
    this.notice(sandboxReachLine(this.sandbox, who));
  }
}

/** The warning: what `--sandbox` does not confine, and what would. */
export function sandboxReachLine(sandbox: Exclude<SandboxMode, "off">, who: string): string {
  return `acp-terminal: warning: --sandbox ${sandbox} does not confine the commands ${who} runs itself (it starts them in its own process and only asks first); it confines only the commands run in acp-terminal's terminals. To confine the agent's own commands, run the agent itself in a sandbox (a container, or --agent "bwrap … <agent>"), or use the agent's own sandbox settings.`;
}

/**
 * A `--verbose` line (the containment, the sandbox) scoped to what it is in force for: the
 * commands run in acp-terminal's terminals. A sandbox that is off claims nothing.
 */
export function scopedLine(described: string, mode?: SandboxMode | "unavailable"): string {
  return mode === "off"
    ? described
    : `${described}; in force for acp-terminal's terminals only, not for commands the agent runs itself`;
}
