export const placeholder = 1;

// --- ACP binding and extensions (src/rpc, src/keys) ---
export { bindTerminalHost } from "./rpc/bind.js";
export type { BindOptions, TerminalBinding } from "./rpc/bind.js";
export type { TerminalHostPort } from "./rpc/host-port.js";
export {
  ACP_TERMINAL_META_KEY,
  ACP_TERMINAL_EXTENSION_VERSION,
  WRITE_METHOD,
  RESIZE_METHOD,
  SIGNAL_METHOD,
  EXTENSION_METHODS,
  terminalClientCapabilities,
  readTerminalCapability,
} from "./rpc/capabilities.js";
export type { AcpTerminalCapability, ExtensionMethod, TerminalClientCapabilities } from "./rpc/capabilities.js";
export {
  SUPPORTED_SIGNALS,
  signalNameSchema,
  ptySizeSchema,
  createTerminalMetaSchema,
  killTerminalMetaSchema,
  writeParamsSchema,
  resizeParamsSchema,
  signalParamsSchema,
} from "./rpc/schemas.js";
export type {
  SupportedSignal,
  CreateTerminalMeta,
  KillTerminalMeta,
  WriteParams,
  ResizeParams,
  SignalParams,
  ExtensionResult,
} from "./rpc/schemas.js";
export { JSON_RPC_ERROR_CODES, toRequestError } from "./rpc/errors.js";
export { encodeKeys, encodeKey, KEY_NAMES, UnknownKeyError } from "./keys/encode-keys.js";
export type { KeyInput } from "./keys/encode-keys.js";
// --- end ACP binding and extensions ---
