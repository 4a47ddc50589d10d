import type { ApprovalRequest } from "../host/types.js";

/**
 * What "the same command" is, for "allow for the rest of this session" and for an answer carried
 * back to a question asked before (an MCP elicitation): the same program and arguments in the same
 * cwd with the same environment and sandbox (the words alone are not the command: `make`
 * elsewhere runs another Makefile, and a program named `./run x` reads like `./run` with `x`),
 * every write to the same terminal, every signal to the same terminal, every write to the same
 * file. A string that two requests share exactly when they are the same in that sense.
 */
export function sameCommandKey(request: ApprovalRequest): string {
  switch (request.action) {
    case "create":
      return JSON.stringify([
        "create",
        request.command,
        request.args,
        request.shell,
        request.cwd,
        request.env,
        request.program,
        request.sandbox,
      ]);
    case "write":
    case "signal":
      return JSON.stringify([request.action, request.terminalId]);
    case "write_file":
      return JSON.stringify([request.action, request.path]);
  }
}
