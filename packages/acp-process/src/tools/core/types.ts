import { z } from "zod";
import { messageOf, ProcessError } from "../../base/errors.js";
import type { ProcessManager } from "../../runs/manager/manager.js";
import type { RunSnapshot } from "../../model/run-events.js";

/** Who is calling: the manager to act on and the ACP session whose runs the model may see. */
export interface ToolContext {
  manager: ProcessManager;
  sessionId: string;
  /** Passed to every run a tool starts (embed the terminal in the tool call here). */
  onStart?: (run: RunSnapshot) => void | Promise<void>;
  /** Added to the labels of every run a tool starts (e.g. `{toolCallId}`). */
  labels?: Record<string, string>;
  /** What `exec` may be asked beyond running a command where the provider runs it (see `ExecPolicy`). */
  execPolicy?: ExecPolicy;
  /**
   * Told when an `exec` run that went to the background ends, unless `notifyOnExit` is off (the
   * exec design's `tools.exec.notifyOnExit`: enqueue a system event for the model).
   */
  onBackgroundExit?: (notice: BackgroundExitNotice) => void;
  /**
   * The caller follows the call to its end however long it takes (an MCP task): `exec` waits for
   * the command instead of answering `status: "running"` after `yieldMs`. Default false.
   */
  awaitEnd?: boolean;
}

/**
 * `exec`'s `elevated` and `host` are refused unless allowed here: acp-process runs every command
 * where its provider runs it (the client's terminal, or the local host) and has no other place
 * or privilege to run it with. Allowing them says that where the provider runs *is* that host / the
 * elevated mode, so the run goes ahead unchanged.
 */
export interface ExecPolicy {
  /** `elevated: true` is accepted (default false: refused). */
  elevated?: boolean;
  /** `host` values accepted (default none: any `host` is refused). */
  hosts?: readonly string[];
  /** Default of `exec`'s `notifyOnExit` (default true). */
  notifyOnExit?: boolean;
}

export interface BackgroundExitNotice {
  sessionId: string;
  /** The run id (`sessionId` in exec's answers). */
  runId: string;
  status: RunSnapshot["status"];
  exitCode: number | null;
  signal: string | null;
  /** The last output, at most 400 characters. */
  snippet: string;
  /** One line for the model: `exec run_ab12 (npm test) completed with exit code 0`. */
  text: string;
}

/** The start options every tool adds from its context. */
export function fromContext(
  ctx: ToolContext,
  tool: string,
): { labels: Record<string, string>; onStart?: NonNullable<ToolContext["onStart"]> } {
  return { labels: { ...ctx.labels, tool }, ...(ctx.onStart ? { onStart: ctx.onStart } : {}) };
}

/** A model tool: a zod schema (also as JSON Schema) and a handler over ProcessManager. */
export interface ToolDefinition<Input = unknown, Output = unknown> {
  /** Canonical name (`exec`, `process`, `process.run`, `shell`). */
  name: string;
  /** Name safe for model APIs that allow only `[A-Za-z0-9_-]` (`process_run`). */
  functionName: string;
  description: string;
  schema: z.ZodType<Input>;
  /** JSON Schema of the input, for model tool definitions. */
  jsonSchema: Record<string, unknown>;
  /** Validates `input` and runs the tool. Throws `ProcessError` (code `invalid_params` for bad input). */
  handle(ctx: ToolContext, input: unknown): Promise<Output>;
}

export type ToolOutcome<Output> =
  { ok: true; result: Output } | { ok: false; error: { code: string; message: string } };

/** Runs a tool and turns every failure into a value a model can read and act on. */
export async function runTool<Output>(
  tool: ToolDefinition<unknown, Output>,
  ctx: ToolContext,
  input: unknown,
): Promise<ToolOutcome<Output>> {
  try {
    return { ok: true, result: await tool.handle(ctx, input) };
  } catch (error) {
    if (error instanceof ProcessError) {
      return { ok: false, error: { code: error.code, message: error.message } };
    }
    return { ok: false, error: { code: "internal", message: messageOf(error) } };
  }
}

export function defineTool<Input, Output>(spec: {
  name: string;
  description: string;
  schema: z.ZodType<Input>;
  run: (ctx: ToolContext, input: Input) => Promise<Output>;
}): ToolDefinition<Input, Output> {
  return {
    name: spec.name,
    functionName: spec.name.replace(/[^A-Za-z0-9_-]/g, "_"),
    description: spec.description,
    schema: spec.schema,
    jsonSchema: z.toJSONSchema(spec.schema, { io: "input" }) as Record<string, unknown>,
    async handle(ctx, input) {
      const parsed = spec.schema.safeParse(input);
      if (!parsed.success) {
        throw new ProcessError(
          "invalid_params",
          `Invalid ${spec.name} arguments: ${describeIssues(parsed.error)}`,
        );
      }
      return spec.run(ctx, parsed.data);
    },
  };
}

function describeIssues(error: z.ZodError): string {
  return (
    error.issues
      .slice(0, 5)
      // An issue of the whole input (unknown parameters) says what it is about itself.
      .map((issue) =>
        issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message,
      )
      .join("; ")
  );
}
