/**
 * The character cells a PTY has when none are asked for, as a terminal window opens: the host's
 * PTYs, the sizes acp-process announces for its PTY runs, and the CLI's view of an agent's terminal.
 */
export const DEFAULT_PTY_SIZE = { cols: 80, rows: 24 } as const;
