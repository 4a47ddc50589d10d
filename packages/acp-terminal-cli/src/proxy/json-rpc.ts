/** A JSON-RPC id as a request or an answer carries it. */
export type RpcId = string | number | null;

/** A field of a value read from the wire, unknown until checked. */
export function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null ? Reflect.get(value, name) : undefined;
}

/** A JSON object (not an array, not null). */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A JSON-RPC error answer of the proxy's own (-32603: the request could not be carried out). */
export function errorAnswer(
  id: RpcId,
  message: string,
  data?: Record<string, unknown>,
): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id,
    error: { code: -32603, message, ...(data === undefined ? {} : { data }) },
  };
}
