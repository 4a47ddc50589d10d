/** What the agent says about one terminal (see remote-helper.ts), or that the connection is gone; parsed from its lines. */
export type RemoteEvent =
  | { kind: "started"; pid: number }
  | { kind: "failed"; stage: string; errno: number; message: string }
  | { kind: "exit"; exitCode: number | null; signal: string | null; groupAlive: boolean }
  | { kind: "lost" }
  | { kind: "empty" }
  | { kind: "released" }
  | { kind: "resized" }
  | { kind: "connection-lost"; reason: string };

/** The event a line `op token ...rest` reports, or undefined for a line that is none. */
export function parseEvent(op: string, rest: string[]): RemoteEvent | undefined {
  switch (op) {
    case "started":
      return { kind: "started", pid: Number(rest[0]) };
    case "failed": {
      const [stage = "", errno = "0", ...message] = rest;
      return { kind: "failed", stage, errno: Number(errno), message: message.join(" ") };
    }
    case "exit": {
      const [code = "-", signal = "-", alive = "0"] = rest;
      return {
        kind: "exit",
        exitCode: code === "-" ? null : Number(code),
        signal: signal === "-" ? null : signal,
        groupAlive: alive === "1",
      };
    }
    case "lost":
    case "empty":
    case "released":
    case "resized":
      return { kind: op };
    default:
      return undefined;
  }
}
