import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { runToExit, sh, type Check } from "../base/check.js";
import { expect } from "../base/probe.js";

const ARGS = ["%s|", "a b", "$HOME", "*", "'q'", ";echo injected", ""];

export const processChecks: Check[] = [
  {
    id: "env-honoured",
    name: "env variables reach the command",
    kind: "must",
    async run(ctx) {
      const value = "two words = one value";
      const { output } = await runToExit(ctx, {
        ...sh('printf "%s|%s" "$ACP_CONFORMANCE_VALUE" "$ACP_CONFORMANCE_EMPTY"'),
        env: [
          { name: "ACP_CONFORMANCE_VALUE", value },
          { name: "ACP_CONFORMANCE_EMPTY", value: "" },
        ],
      });
      expect(
        output === `${value}|`,
        `expected ${JSON.stringify(`${value}|`)}, got ${JSON.stringify(output)}`,
      );
      return `ACP_CONFORMANCE_VALUE=${JSON.stringify(value)} arrived intact`;
    },
  },
  {
    id: "cwd-honoured",
    name: "cwd is the command's working directory",
    kind: "must",
    async run(ctx) {
      const dir = await realpath(await mkdtemp(path.join(tmpdir(), "acp-conformance-")));
      try {
        const { output } = await runToExit(ctx, { ...sh("pwd -P"), cwd: dir });
        expect(
          output.trim() === dir,
          `expected ${JSON.stringify(dir)}, got ${JSON.stringify(output.trim())}`,
        );
        return `the command ran in ${dir}`;
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  },
  {
    id: "args-literal",
    name: "args are passed literally, without a shell",
    kind: "must",
    async run(ctx) {
      const { output } = await runToExit(ctx, { command: "printf", args: ARGS });
      const expected = `${ARGS.slice(1).join("|")}|`;
      expect(
        output === expected,
        `expected ${JSON.stringify(expected)}, got ${JSON.stringify(output)}`,
      );
      return `spaces, $, *, quotes, ; and an empty argument arrived unchanged`;
    },
  },
];
