import { setFlagsFromString } from "node:v8";

/**
 * Sizes V8's heap for a program that lives long and mostly waits (the MCP server, the CLI's
 * `run`), before it loads its modules. V8's defaults size it for throughput: the young generation
 * grows to two 16 MiB semi-spaces (~30 MB of RSS once a flood has passed through them) and the
 * old generation may grow to about four times what it holds before a full collection (~60 MB of
 * garbage after 100 MB of output through the MCP server). Both flags are read by V8 at each
 * collection, so they apply when set at run time: the young generation keeps its first size
 * (1 MiB semi-spaces), and the old one is collected once it has grown by a fifth. Measured in
 * bench/process-mcp-floor.mjs (the server at rest and through a 100 MB line) and bench/cli-v2
 * (100 MiB through `run`: 105 → 77 MB, and 86 → 75 MB hosted under v1; CPU within the noise).
 */
export function leanHeap(): void {
  setFlagsFromString("--semi-space-growth-factor=1");
  setFlagsFromString("--heap-growing-percent=20");
}
