// The examples run from the repository, where acp-terminal is not installed at the root.
// In your project: import { ... } from "acp-terminal";
export * from "../../packages/acp-terminal/dist/index.js";
