/**
 * The @agentclientprotocol/sdk copy that acp-terminal itself resolves.
 *
 * test/ pins zod 3, so pnpm gives it a second SDK copy (peer-resolved against zod 3). A ClientApp
 * handed to bindTerminalHost must come from acp-terminal's copy (error classes are compared with
 * instanceof), so client-side fixtures import the SDK from here. Agent-side code may use either.
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.resolve("acp-terminal"));
const sdk = await import(pathToFileURL(require.resolve("@agentclientprotocol/sdk")).href);

export const { client, agent, ndJsonStream, RequestError, methods } = sdk;
export default sdk;
