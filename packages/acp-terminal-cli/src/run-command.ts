import type { RunOptions } from "./command/args.js";
import { ExitCode } from "./exit-codes.js";
import { JsonRenderer } from "./render/json-renderer.js";
import { checkBeforeLaunch } from "./command/preflight.js";
import { outputOf } from "./view/renderer.js";
import { Run, type CliIo } from "./conversation/run.js";
import { runV2 } from "./conversation/run-v2.js";
import { TextRenderer } from "./render/text-renderer.js";

/** Runs one prompt turn against the agent; resolves with the process exit code. Never throws. */
export async function run(options: RunOptions, io: CliIo): Promise<number> {
  const err = outputOf(io.stderr);
  const out = outputOf(io.stdout);
  const problem = checkBeforeLaunch(options, io.cwd);
  if (problem !== undefined) {
    // Machines reading --json still get their result line; people get the one line of error.
    if (options.json) {
      new JsonRenderer(out, err).finish({
        exitCode: ExitCode.usage,
        error: problem,
        elapsedMs: 0,
        terminals: [],
      });
    } else {
      err.write(`${problem}\n`);
    }
    return ExitCode.usage;
  }
  const renderer = options.json ? new JsonRenderer(out, err) : new TextRenderer(out, err);
  if (options.protocol !== undefined) {
    return runV2(options, io, renderer);
  }
  return new Run(options, io, renderer).execute();
}
