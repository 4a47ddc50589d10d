import { readFileSync } from "node:fs";
import { messageOf } from "acp-terminal/internal";
import type { UserMcpServer } from "./driver.js";

/** Bytes of an `--mcp-config` file read at most. */
const MAX_CONFIG_BYTES = 1024 * 1024;
/** Servers one file may list. */
const MAX_SERVERS = 64;

function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null ? Reflect.get(value, name) : undefined;
}

const isRecord = (value: unknown): value is object =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `{"K": "V"}` as `[{name: "K", value: "V"}]`; undefined when it is not such an object. */
function pairs(value: unknown): Array<{ name: string; value: string }> | undefined {
  if (value === undefined) {
    return [];
  }
  if (!isRecord(value)) {
    return undefined;
  }
  const list: Array<{ name: string; value: string }> = [];
  for (const [name, entry] of Object.entries(value)) {
    if (typeof entry !== "string") {
      return undefined;
    }
    list.push({ name, value: entry });
  }
  return list;
}

/**
 * The MCP servers of `--mcp-config FILE`, in the format MCP hosts (Claude Desktop, Claude Code's
 * `.mcp.json`, Cursor) write: `{"mcpServers": {"<name>": {"command", "args", "env"}}}` for a
 * stdio server, `{"type": "http" | "sse", "url", "headers"}` for a remote one (a `url` without a
 * type is http; `streamable-http` is http); VS Code's `servers` key is read too. Returns the
 * servers, or an error naming the file and the entry.
 */
export function readMcpConfig(file: string): UserMcpServer[] | { error: string } {
  let text: string;
  try {
    const bytes = readFileSync(file);
    if (bytes.byteLength > MAX_CONFIG_BYTES) {
      return {
        error: `Invalid --mcp-config ${file}: ${bytes.byteLength} bytes, more than ${MAX_CONFIG_BYTES}`,
      };
    }
    text = bytes.toString("utf8");
  } catch (error) {
    return { error: `Invalid --mcp-config: cannot read ${file} (${messageOf(error)})` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { error: `Invalid --mcp-config ${file}: not JSON (${messageOf(error)})` };
  }
  const servers = field(parsed, "mcpServers") ?? field(parsed, "servers");
  if (!isRecord(servers)) {
    return {
      error: `Invalid --mcp-config ${file}: expected {"mcpServers": {"<name>": {"command": …} | {"url": …}}}`,
    };
  }
  const entries = Object.entries(servers);
  if (entries.length > MAX_SERVERS) {
    return {
      error: `Invalid --mcp-config ${file}: ${entries.length} servers, more than ${MAX_SERVERS}`,
    };
  }
  const list: UserMcpServer[] = [];
  for (const [name, entry] of entries) {
    const server = serverOf(name, entry);
    if (typeof server === "string") {
      return {
        error: `Invalid --mcp-config ${file}: server ${JSON.stringify(name.slice(0, 100))}: ${server}`,
      };
    }
    list.push(server);
  }
  return list;
}

function serverOf(name: string, entry: unknown): UserMcpServer | string {
  if (!isRecord(entry)) {
    return "expected an object";
  }
  const type = field(entry, "type");
  const url = field(entry, "url");
  if (typeof url === "string" || type === "http" || type === "sse" || type === "streamable-http") {
    if (typeof url !== "string") {
      return `expected "url" for a ${String(type)} server`;
    }
    const headers = pairs(field(entry, "headers"));
    if (headers === undefined) {
      return `expected "headers" as {"Name": "value"}`;
    }
    return { type: type === "sse" ? "sse" : "http", name, url, headers };
  }
  if (type !== undefined && type !== "stdio") {
    return `unknown type ${JSON.stringify(type)} (expected stdio, http or sse)`;
  }
  const command = field(entry, "command");
  const args = field(entry, "args") ?? [];
  const env = pairs(field(entry, "env"));
  if (typeof command !== "string" || command === "") {
    return `expected "command" (or "url")`;
  }
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string")) {
    return `expected "args" as a list of strings`;
  }
  if (env === undefined) {
    return `expected "env" as {"NAME": "value"}`;
  }
  return { type: "stdio", name, command, args, env };
}
