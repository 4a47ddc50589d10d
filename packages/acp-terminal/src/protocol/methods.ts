// The names of the acp-terminal extension (see extension.ts): its `_meta` key, its version and
// its method names.

/** The key under `_meta` where every acp-terminal extension lives. */
export const ACP_TERMINAL_META_KEY = "acp-terminal";

/** Version of the extension set advertised in `clientCapabilities._meta["acp-terminal"]`. */
export const ACP_TERMINAL_EXTENSION_VERSION = 1;

/** Extension method names (the leading underscore marks them as non-standard in ACP). */
export const EXTENSION_METHODS = {
  write: "_acp-terminal/write",
  resize: "_acp-terminal/resize",
  signal: "_acp-terminal/signal",
} as const;
export type ExtensionMethodName = keyof typeof EXTENSION_METHODS;
export type ExtensionMethod = (typeof EXTENSION_METHODS)[ExtensionMethodName];
/** Every method's short name, in the order of EXTENSION_METHODS. */
export const EXTENSION_METHOD_NAMES: readonly ExtensionMethodName[] = Object.keys(
  EXTENSION_METHODS,
).filter((name): name is ExtensionMethodName => Object.hasOwn(EXTENSION_METHODS, name));

export const WRITE_METHOD = EXTENSION_METHODS.write;
export const RESIZE_METHOD = EXTENSION_METHODS.resize;
export const SIGNAL_METHOD = EXTENSION_METHODS.signal;
