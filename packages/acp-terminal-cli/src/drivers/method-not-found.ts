import { boundedRequestError, cutText } from "acp-terminal/internal";

/**
 * The answer to a request for a method the client does not serve: -32601 naming the method, cut
 * to 200 characters (the SDK's own answer holds the name twice, however long: a 1 MB name would
 * make 2 MB).
 */
export function methodNotFound({ method }: { method: string }): never {
  throw boundedRequestError(-32601, `Method not found: ${cutText(method, 200)}`);
}
