// The command line's flags, as parseArgs reads them and as --help describes them, side by side so
// that a flag is added to both.
import type { ParseArgsConfig } from "node:util";
import { APPROVAL_FLAG_OPTIONS, approvalFlagsHelp } from "acp-terminal/approval";
import { KNOWN_AGENT_NAMES } from "../agent/known-agents.js";
import { EXIT_CODES_HELP } from "../exit-codes.js";

export const USAGE = `Usage:
  acp-terminal run --agent "<command line>" [options] ["<prompt>" | -]
  acp-terminal run --agent <name> [options] ["<prompt>" | -]   (a known agent: claude, codex …)
  acp-terminal sessions [list | show ID] --agent <name> [--cwd DIR | --all] [--json]
                               (the agent's sessions: acp-terminal sessions --help)
  acp-terminal mcp [options]   (an MCP server of command tools: acp-terminal mcp --help)
  acp-terminal proxy [options] -- <agent command>   (terminals for an editor: acp-terminal proxy --help)
  acp-terminal --help | --version

Runs an ACP agent, sends it the prompt, shows the commands it runs live, and prints what it does.
Without a prompt (or with -): piped stdin, whole, is the prompt (--lines: one a line, a turn each);
on a terminal, a session you type into (Ctrl-C cancels the turn, twice quits; Ctrl-D ends the
session). A prompt argument and piped stdin make one prompt, the argument first.

Options:
  --agent CMD        the agent's command line (run through the shell), e.g. "npx my-agent --acp",
                     or a known name (~/.config/acp-terminal/agents.json adds and overrides):
                     ${KNOWN_AGENT_NAMES.join(", ")}
  --cwd DIR          the session's working directory (default: the current directory)
  --pty              run the agent's terminals in a pseudo-terminal
${approvalFlagsHelp(21)}
                     --allow patterns also approve the commands the agent runs itself and asks
                     about (claude's Bash, codex's commands): those run unconfined
  --approve-reads    allow the agent's permission requests that only read (kind read, search)
  --deny-all         reject every permission request of the agent
  --permission-policy FILE|JSON
                     a policy for the agent's permission requests, as acpx reads one:
                     {"autoApprove": ["read"], "autoDeny": ["execute"], "escalate": [],
                     "defaultAction": "escalate", "allow": ["git status"]} (--policy too)
  -f, --file FILE    the prompt is FILE's text (-f -: stdin's, also on a terminal), after the
                     prompt argument if one is given
  --lines            piped stdin holds one prompt a line, a turn each in one session
  --json             one JSON object per line on stdout, for programs
  --timeout S        give up after S seconds for the whole run
  --init-timeout S   how long the agent may take to answer initialize (default 10)
  --cancel-grace S   after Ctrl-C, how long the agent may take to end its turn (default 2)
  --agent-log FILE   append the agent's stderr to FILE (default: a log per agent in
                     ~/.local/state/acp-terminal/logs, named at start)
  --agent-stderr     show the agent's stderr here instead of logging it
  --max-terminals N  live terminals the session may hold (default 64)
  --max-total-terminals N
                     live terminals in all (default 1024, or --max-terminals if higher)
  --verbose          say on stderr how terminals are contained (process tree, PID namespace or
                     process group) and sandboxed
  --no-contain       kill reaches each command's process group only: what leaves it (setsid, a
                     double fork) outlives its terminal
  --pid-namespace    each terminal in its own PID namespace: commands see namespace pids ($$, $!,
                     ps), which mean nothing to the agent or to other terminals
  --on WHERE         run the terminals' commands elsewhere: ssh://[user@]host[:port] (as ssh
                     resolves it, ~/.ssh/config included), docker://CONTAINER, or
                     docker-image://IMAGE (a container per session with --cwd mounted at the
                     same path); --cwd is then a path there. Needs perl there.
  --mcp-tools        offer the terminals as MCP tools (exec, process) instead of v1 terminals:
                     over the ACP connection when the agent takes it (mcpCapabilities.acp), else
                     as the stdio server acp-terminal mcp with this cwd, --yes/--allow, --sandbox
  --protocol V       the dialect: auto (default: v2 if the agent speaks it, else v1 with _meta
                     terminal output, which serves client terminals too), or one forced: v2 (the
                     draft: agent-owned terminals; Ctrl-C sends terminal/cancel first), v1-meta,
                     v1 (client terminals; _meta output the agent sends anyway is still shown)
  --session ID       load or resume that session (session/resume, else session/load); one run
                     at a time per session
  --name NAME        resume the session named NAME (this agent, this --cwd), or start one and
                     name it so (acp-terminal sessions list shows the names)
  --auth METHOD      log in with one of the agent's authMethods first (a terminal login runs here)
  --fs-allow DIR     let the agent's file requests reach DIR too (default: the session's cwd only)
  --no-fs            declare no file system: the agent reads and writes files itself (Gemini CLI
                     creates new files only so)
  --mcp-config FILE  pass the MCP servers of FILE ({"mcpServers": {...}}, as MCP hosts write it)
  --quiet            print only the agent's final message (errors still on stderr)
  --help, -h         this help
  --version          the version

${EXIT_CODES_HELP}
`;

/** The `parseArgs` options of the command line. */
export const FLAG_OPTIONS = {
  agent: { type: "string" },
  cwd: { type: "string" },
  pty: { type: "boolean", default: false },
  ...APPROVAL_FLAG_OPTIONS,
  "approve-reads": { type: "boolean", default: false },
  "deny-all": { type: "boolean", default: false },
  "permission-policy": { type: "string" },
  policy: { type: "string" },
  json: { type: "boolean", default: false },
  file: { type: "string", short: "f" },
  lines: { type: "boolean", default: false },
  timeout: { type: "string" },
  "init-timeout": { type: "string" },
  "cancel-grace": { type: "string" },
  "agent-log": { type: "string" },
  "agent-stderr": { type: "boolean", default: false },
  "max-terminals": { type: "string" },
  "max-total-terminals": { type: "string" },
  verbose: { type: "boolean", default: false },
  "no-contain": { type: "boolean", default: false },
  "pid-namespace": { type: "boolean", default: false },
  "mcp-tools": { type: "boolean", default: false },
  on: { type: "string" },
  protocol: { type: "string", default: "auto" },
  session: { type: "string" },
  name: { type: "string" },
  auth: { type: "string" },
  "fs-allow": { type: "string", multiple: true, default: [] },
  "no-fs": { type: "boolean", default: false },
  "mcp-config": { type: "string" },
  quiet: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
  version: { type: "boolean", default: false },
} satisfies ParseArgsConfig["options"];
