import { DEFAULT_MAX_TERMINALS, DEFAULT_MAX_TERMINALS_PER_SESSION } from "acp-terminal";

/** The most terminals either flag accepts: each live terminal holds descriptors and a process. */
export const MAX_TERMINALS_FLAG = 65_536;

export interface TerminalLimits {
  /** Live terminals the session may hold (`--max-terminals`). */
  maxTerminals: number;
  /** Live terminals in all (`--max-total-terminals`); never below `maxTerminals` unless given. */
  maxTotalTerminals: number;
}

/** A whole number of terminals from 1 to MAX_TERMINALS_FLAG, undefined when absent, or an error message. */
function count(flag: string, value: string | undefined): number | string | undefined {
  if (value === undefined) {
    return undefined;
  }
  const n = Number(value);
  if (value.trim() === "" || !Number.isInteger(n) || n < 1) {
    return `Invalid ${flag}: expected a whole number of terminals, at least 1, received ${JSON.stringify(value)}`;
  }
  if (n > MAX_TERMINALS_FLAG) {
    return `Invalid ${flag}: at most ${MAX_TERMINALS_FLAG} terminals, received ${JSON.stringify(value)}`;
  }
  return n;
}

/** `--max-terminals` and `--max-total-terminals` with their defaults, or an error message. */
export function terminalLimits(
  perSession: string | undefined,
  total: string | undefined,
): TerminalLimits | string {
  const maxTerminals = count("--max-terminals", perSession) ?? DEFAULT_MAX_TERMINALS_PER_SESSION;
  if (typeof maxTerminals === "string") {
    return maxTerminals;
  }
  const maxTotalTerminals =
    count("--max-total-terminals", total) ?? Math.max(DEFAULT_MAX_TERMINALS, maxTerminals);
  if (typeof maxTotalTerminals === "string") {
    return maxTotalTerminals;
  }
  if (maxTotalTerminals < maxTerminals) {
    return `Invalid --max-total-terminals: ${maxTotalTerminals} is below --max-terminals ${maxTerminals}, which could then never be reached`;
  }
  return { maxTerminals, maxTotalTerminals };
}
