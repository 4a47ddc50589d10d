export { mcpMain, type McpIo } from "./cli.js";
export {
  MCP_USAGE,
  TOKEN_ENV,
  parseMcpCommand,
  type McpOptions,
  type ParsedMcpCommand,
} from "./args.js";
export { authorizeHook, describePolicy, type ApprovalFlags } from "./policy.js";
export { createRuntime, type Runtime, type RuntimeOptions } from "./runtime.js";
export { toolServerFactory, type ToolServerOptions } from "./tool-server.js";
export { TOOL_SETS, TOOL_SET_NAMES, isToolSetName, type ToolSetName } from "./tool-sets.js";
export { WorkspaceProvider } from "./workspace-provider.js";
export { serveOnStdio } from "./serve-stdio.js";
export { serveOnHttp, MCP_PATH, type HttpServing } from "./serve-http.js";
export { parseListenAddress, type ListenAddress } from "./listen-address.js";
export { hostTools, type HostToolsOptions } from "./host-tools.js";
