import { authorizeAction } from "../host/authorize.js";
import type { AuthorizeFileWrite } from "../host/types.js";
import type { ApprovalPolicy } from "./approval-policy.js";

/**
 * Asks `policy` about a client's file write (ACP `fs/write_text_file`), as a host asks about a
 * command: resolves when allowed; throws the TerminalError `denied` saying what was denied and
 * why (`Denied by the user: /work/a.txt (12 bytes, a new file) (no terminal to ask on: …)`).
 */
export async function approveFileWrite(
  policy: ApprovalPolicy,
  request: AuthorizeFileWrite,
): Promise<void> {
  await authorizeAction(policy, request);
}
