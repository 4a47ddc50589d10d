// acp-process/provider: for writing a TerminalProvider (the contract, what it reports, and the
// acp-terminal extension names a provider over ACP looks for).
export {
  NO_EXTENSIONS,
  type ProviderCapabilities,
  type ProviderCreateParams,
  type ProviderExitStatus,
  type ProviderOutput,
  type ProviderOutputOptions,
  type OutputStream,
  type TerminalProvider,
} from "./providers/types.js";
export { processGroupUsage, type ResourceUsage } from "./providers/proc-usage.js";
export {
  EXTENSION_KEY,
  EXTENSION_METHODS,
  detectClientTerminalSupport,
  type ClientTerminalSupport,
} from "./providers/acp-capabilities.js";
