import { passed, type V2Check } from "../base/check.js";
import { b64 } from "../base/session.js";
import { announce, SIZE, steps } from "./steps.js";

const unknownSessionUpdate: V2Check = {
  id: "unknown-session-update",
  name: "An unknown `_`-prefixed session update is ignored or shown generically, not an error",
  kind: "robustness",
  async run(ctx) {
    const { session } = ctx;
    const id = await announce(ctx, "t", "echo extension");
    return passed(
      await steps(ctx, [
        [
          "a `_acp-terminal/conformance-probe` session update",
          () =>
            session.rawUpdate({
              sessionUpdate: "_acp-terminal/conformance-probe",
              terminalId: id,
              payload: { nested: [1, "two", null], data: b64("not terminal output") },
            }),
        ],
        [
          "a `_acp-terminal/terminal_output_chunk` look-alike",
          () =>
            session.rawUpdate({
              sessionUpdate: "_acp-terminal/terminal_output_chunk",
              terminalId: id,
              data: "not base64 at all ✗",
            }),
        ],
        ["exitStatus", () => session.terminal({ terminalId: id, exitStatus: { exitCode: 0 } })],
      ]),
    );
  },
};

const unknownNestedVariants: V2Check = {
  id: "unknown-nested-variants",
  name: "Unknown `_`-prefixed tool call content and background items are ignored or shown generically",
  kind: "robustness",
  async run(ctx) {
    const { session } = ctx;
    const id = await announce(ctx, "t", "echo nested");
    const toolCallId = ctx.terminalId("tool");
    return passed(
      await steps(ctx, [
        [
          "a tool call whose content has a `_acp-terminal/probe` item beside the terminal",
          () =>
            session.rawUpdate({
              sessionUpdate: "tool_call_update",
              toolCallId,
              title: "unknown content probe",
              status: "in_progress",
              content: [
                { type: "_acp-terminal/probe", value: 42 },
                { type: "terminal", terminalId: id },
              ],
            }),
        ],
        [
          "a state_update listing a `_acp-terminal/probe` background item",
          () =>
            session.rawUpdate({
              sessionUpdate: "state_update",
              state: "running",
              background: [{ type: "_acp-terminal/probe", label: "not a terminal" }],
            }),
        ],
        ["the background list restored", () => session.state("running")],
        [
          "exitStatus and the tool call completed",
          async () => {
            await session.terminal({ terminalId: id, exitStatus: { exitCode: 0 } });
            await session.toolCall({ toolCallId, status: "completed" });
          },
        ],
      ]),
    );
  },
};

const unknownMeta: V2Check = {
  id: "unknown-meta",
  name: "Unknown `_meta` keys on terminal updates, chunks and their parts are not given meaning nor refused",
  kind: "robustness",
  async run(ctx) {
    const { session } = ctx;
    const id = ctx.terminalId("t");
    await ctx.embed(id);
    const meta = { "acp-terminal-conformance/unknown": { deep: [1, { x: null }] }, zz: "?" };
    return passed(
      await steps(ctx, [
        [
          "a terminal_update with `_meta` on it, its size, output and capabilities",
          () =>
            session.rawUpdate({
              sessionUpdate: "terminal_update",
              terminalId: id,
              command: "echo meta",
              cwd: session.cwd,
              size: { ...SIZE, _meta: meta },
              output: { data: b64("meta\r\n"), _meta: meta },
              capabilities: { _meta: meta },
              _meta: meta,
            }),
        ],
        [
          "a chunk with `_meta`",
          () =>
            session.rawUpdate({
              sessionUpdate: "terminal_output_chunk",
              terminalId: id,
              data: b64("more\r\n"),
              _meta: meta,
            }),
        ],
        [
          "a `_meta` patch removing one key and a `_meta: null` clearing all",
          async () => {
            await session.rawUpdate({
              sessionUpdate: "terminal_update",
              terminalId: id,
              _meta: { zz: null },
            });
            await session.rawUpdate({
              sessionUpdate: "terminal_update",
              terminalId: id,
              _meta: null,
            });
          },
        ],
        [
          "exitStatus with `_meta`",
          () =>
            session.rawUpdate({
              sessionUpdate: "terminal_update",
              terminalId: id,
              exitStatus: { exitCode: 0, _meta: meta },
            }),
        ],
      ]),
    );
  },
};

/** `_`-prefixed variants and unknown `_meta`, in the order they run. */
export const unknownVariantChecks: readonly V2Check[] = [
  unknownSessionUpdate,
  unknownNestedVariants,
  unknownMeta,
];
