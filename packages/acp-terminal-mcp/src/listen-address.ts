import { isIP } from "node:net";

export interface ListenAddress {
  host: string;
  port: number;
  /** 127.0.0.0/8, ::1 or localhost: reachable from this machine only. */
  loopback: boolean;
}

/** `HOST:PORT`, `[IPv6]:PORT`; port 0 picks a free one. An error message when malformed. */
export function parseListenAddress(text: string): ListenAddress | string {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) {
    return `Invalid --http: expected HOST:PORT (e.g. 127.0.0.1:8765, [::1]:8765, 0.0.0.0:8765), received ${JSON.stringify(text)}`;
  }
  const host = (match[1] ?? match[2])!;
  if (match[1] !== undefined && isIP(host) !== 6) {
    return `Invalid --http: ${JSON.stringify(match[1])} in brackets is not an IPv6 address`;
  }
  return { host, port, loopback: isLoopback(host) };
}

function isLoopback(host: string): boolean {
  if (host === "localhost" || host === "::1") {
    return true;
  }
  return isIP(host) === 4 && host.startsWith("127.");
}
