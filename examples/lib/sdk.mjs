// The @agentclientprotocol/sdk copy acp-terminal uses (bindTerminalHost needs a ClientApp from
// the same copy). In your project: import { ... } from "@agentclientprotocol/sdk";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const require = createRequire(new URL("../../packages/acp-terminal/package.json", import.meta.url));
const sdk = await import(pathToFileURL(require.resolve("@agentclientprotocol/sdk")).href);

export const { agent, client, ndJsonStream, methods, RequestError, PROTOCOL_VERSION } = sdk;
