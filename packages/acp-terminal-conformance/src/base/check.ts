import type { AcpTerminalCapability } from "acp-terminal/protocol";
import type { CreateTerminalRequest, TerminalOutputResponse } from "@agentclientprotocol/sdk";
import type { TerminalProbe } from "./probe.js";

/**
 * `must`/`should`: what the ACP v1 terminal spec requires or recommends; a failure is a bug.
 * `behaviour`: where the spec is silent and clients may reasonably differ; reported, never failed.
 * `extension`: acp-terminal's `_meta["acp-terminal"]` extensions, run only when advertised.
 */
export type CheckKind = "must" | "should" | "behaviour" | "extension";
export type CheckStatus = "pass" | "fail" | "skip";

export interface CheckContext {
  probe: TerminalProbe;
  /** Shows the terminal inside the check's tool call. */
  embed(terminalId: string): Promise<void>;
  /** The client's acp-terminal extension capability, when advertised. */
  extension?: AcpTerminalCapability | undefined;
}

export interface Check {
  id: string;
  name: string;
  kind: CheckKind;
  /** Whole-check deadline; default CHECK_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Resolves with what was observed; throws CheckFailure (fail) or CheckSkip (skip). */
  run(ctx: CheckContext): Promise<string>;
}

export interface CheckResult {
  id: string;
  name: string;
  kind: CheckKind;
  status: CheckStatus;
  detail: string;
}

/** `sh -c script` with args, so no client-side shell decision is involved. */
export function sh(script: string): { command: string; args: string[] } {
  return { command: "sh", args: ["-c", script] };
}

/** A behaviour check's detail: what was observed, and whether acp-terminal decided the same way. */
export function observed(same: boolean, what: string): string {
  return `${what} (${same ? "same as" : "differs from"} acp-terminal)`;
}

/** Creates a terminal, shows it in the check, waits for its command to exit and reads its output. */
export async function runToExit(
  { probe, embed }: CheckContext,
  params: Omit<CreateTerminalRequest, "sessionId">,
): Promise<TerminalOutputResponse> {
  const id = await probe.create(params);
  await embed(id);
  await probe.waitForExit(id);
  return probe.output(id);
}
