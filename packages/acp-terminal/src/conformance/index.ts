// acp-terminal/conformance: the conformance agent, which checks a client's ACP terminals and
// reports what passed (the `acp-terminal-conformance` program runs it over stdio).
export { conformanceAgent } from "./agent.js";
export type { ConformanceAgentOptions } from "./agent.js";
export type { CheckKind, CheckResult, CheckStatus } from "./base/check.js";
export type { ConformanceReport, ConformanceSummary } from "./report.js";
