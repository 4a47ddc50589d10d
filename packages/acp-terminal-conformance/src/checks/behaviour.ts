import { randomUUID } from "node:crypto";
import { ACP_TERMINAL_META_KEY } from "acp-terminal/protocol";
import { observed, runToExit, sh, type Check } from "../base/check.js";
import { CheckFailure, RpcFailure } from "../base/probe.js";

const DEFAULT_LIMIT_PROBE_BYTES = 1536 * 1024;

export const behaviourChecks: Check[] = [
  {
    id: "shell-for-command-line",
    name: "a command line without args runs through a shell",
    kind: "behaviour",
    async run({ probe, embed }) {
      let id: string;
      try {
        id = await probe.create({ command: "echo $((6*7)) | tr 4 x" });
      } catch (error) {
        if (!(error instanceof RpcFailure)) {
          throw error;
        }
        return observed(
          false,
          `no shell: the command line was taken as a program name (${error.rpc.message})`,
        );
      }
      await embed(id);
      const status = await probe.waitForExit(id);
      const { output } = await probe.output(id);
      const shell = output.trim() === "x2";
      return observed(
        shell,
        shell
          ? "the command line ran through a shell"
          : `no shell: output ${JSON.stringify(output)}, ${JSON.stringify(status)}`,
      );
    },
  },
  {
    id: "stderr-merged",
    name: "stderr is merged into the output",
    kind: "behaviour",
    async run(ctx) {
      const { output } = await runToExit(ctx, sh("echo to-stdout; echo to-stderr >&2"));
      const merged = output.includes("to-stdout") && output.includes("to-stderr");
      return observed(
        merged,
        merged
          ? "stdout and stderr both appear in the output"
          : `only ${JSON.stringify(output)} appears`,
      );
    },
  },
  {
    id: "stdin-closed",
    name: "stdin is closed, so cat sees end-of-file",
    kind: "behaviour",
    async run({ probe, embed }) {
      const id = await probe.create({ command: "cat", args: [] });
      await embed(id);
      try {
        const status = await probe.waitForExit(id, 3_000);
        return observed(status.exitCode === 0, `cat exited at once with ${JSON.stringify(status)}`);
      } catch (error) {
        if (!(error instanceof CheckFailure) || error instanceof RpcFailure) {
          throw error;
        }
        await probe.kill(id);
        return observed(false, "cat was still waiting for input after 3 s: stdin is left open");
      }
    },
  },
  {
    id: "unknown-id-code",
    name: "the error code for an unknown terminal id",
    kind: "behaviour",
    async run({ probe }) {
      try {
        await probe.output(`no-such-terminal-${randomUUID()}`);
      } catch (error) {
        if (!(error instanceof RpcFailure)) {
          throw error;
        }
        return observed(error.rpc.code === -32002, `code ${error.rpc.code}: ${error.rpc.message}`);
      }
      throw new CheckFailure("terminal/output on an unknown id succeeded");
    },
  },
  {
    id: "release-twice",
    name: "releasing a released terminal again",
    kind: "behaviour",
    async run({ probe }) {
      const id = await probe.create(sh("true"));
      await probe.waitForExit(id);
      await probe.release(id);
      try {
        await probe.release(id);
        return observed(true, "the second release succeeds");
      } catch (error) {
        if (!(error instanceof RpcFailure)) {
          throw error;
        }
        return observed(false, `the second release fails: ${error.rpc.message}`);
      }
    },
  },
  {
    id: "default-limit",
    name: "the output kept when outputByteLimit is omitted",
    kind: "behaviour",
    timeoutMs: 20_000,
    async run({ probe }) {
      const id = await probe.create(
        sh(`head -c ${DEFAULT_LIMIT_PROBE_BYTES} /dev/zero | tr '\\0' x`),
      );
      await probe.waitForExit(id, 10_000);
      const { output, truncated } = await probe.output(id);
      const kept = Buffer.byteLength(output);
      if (!truncated) {
        return observed(
          false,
          `kept all ${kept} of ${DEFAULT_LIMIT_PROBE_BYTES} bytes (no default limit below 1.5 MiB)`,
        );
      }
      return observed(
        kept === 1024 * 1024,
        `kept the newest ${kept} of ${DEFAULT_LIMIT_PROBE_BYTES} bytes, truncated`,
      );
    },
  },
  {
    id: "output-cursors",
    name: 'terminal/output carries _meta["acp-terminal"] byte cursors',
    kind: "behaviour",
    async run({ probe }) {
      const id = await probe.create({ ...sh("printf 0123456789"), outputByteLimit: 4 });
      await probe.waitForExit(id);
      const response = await probe.output(id);
      const cursors: unknown = response._meta?.[ACP_TERMINAL_META_KEY];
      if (cursors === undefined) {
        return observed(false, "no cursors in _meta");
      }
      const field = (name: string): unknown =>
        typeof cursors === "object" && cursors !== null && name in cursors
          ? Reflect.get(cursors, name)
          : undefined;
      const exact = field("totalBytes") === 10 && field("droppedBytes") === 6;
      return observed(
        exact,
        `totalBytes ${String(field("totalBytes"))}, droppedBytes ${String(field("droppedBytes"))} for 10 bytes with limit 4`,
      );
    },
  },
];
