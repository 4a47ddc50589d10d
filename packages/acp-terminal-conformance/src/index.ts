// acp-terminal/conformance: the conformance agent, which checks a client's ACP terminals and
// reports what passed (the `acp-terminal-conformance` program runs it over stdio).
export { conformanceAgent } from "./agent.js";
export type { ConformanceAgentOptions } from "./agent.js";
export type { CheckKind, CheckResult, CheckStatus } from "./base/check.js";
export type { ConformanceReport, ConformanceSummary } from "./report.js";
export { conformanceAgentV2 } from "./v2/agent.js";
export type { ConformanceAgentV2Options } from "./v2/agent.js";
export type { V2CheckKind, V2CheckResult, V2CheckStatus } from "./v2/base/check.js";
export type { V2ConformanceReport, V2ConformanceSummary } from "./v2/report.js";
export type { CancelRecord, CancelStanding } from "./v2/base/terminals.js";
