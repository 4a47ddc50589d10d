import { constants } from "node:os";
import { TerminalError } from "../core/errors.js";

const SIGNAL_NUMBERS: Readonly<Record<string, number>> = constants.signals;
/** Number → name; the first name of a number wins (SIGABRT over SIGIOT, SIGIO over SIGPOLL), as Node names a child's signal. */
const SIGNAL_NAMES = new Map<number, string>();
for (const [name, number] of Object.entries(SIGNAL_NUMBERS)) {
  if (!SIGNAL_NAMES.has(number)) {
    SIGNAL_NAMES.set(number, name);
  }
}

function isSignalName(name: string): name is NodeJS.Signals {
  return Object.hasOwn(SIGNAL_NUMBERS, name);
}

/**
 * The canonical name (`"SIGINT"`) of a signal given as `"SIGINT"`, `"sigint"` or `"INT"`.
 * Unknown names are a TerminalError "invalid_params" naming `field`.
 */
export function parseSignalName(signal: unknown, field = "signal"): NodeJS.Signals {
  if (typeof signal === "string") {
    const upper = signal.trim().toUpperCase();
    const name = upper.startsWith("SIG") ? upper : `SIG${upper}`;
    if (isSignalName(name)) {
      return name;
    }
  }
  throw TerminalError.invalidParams(
    field,
    'a POSIX signal name such as "SIGTERM" or "SIGINT"',
    signal,
  );
}

/** `"SIGTERM"` for 15; a number no name is known for becomes `"SIG<n>"`. */
export function signalNameOf(signalNumber: number): string {
  return SIGNAL_NAMES.get(signalNumber) ?? `SIG${signalNumber}`;
}
