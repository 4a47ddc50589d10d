import { describe, expect, it } from "vitest";
import { createApprovalPolicy, type ApprovalAnswer } from "../src/approval/approval-policy.js";
import { matchesAllowPattern, parseAllowPattern } from "../src/approval/allow-pattern.js";
import type { AuthorizeRequest } from "../src/host/types.js";
import { resolvePlan } from "../src/spawn/resolve-program.js";

const owner = { connectionId: "c", sessionId: "s" };
/** A create as the host asks about it: the program resolved on PATH, the argv that is executed. */
const create = (
  command: string,
  args: string[] = [],
  extra: Partial<AuthorizeRequest> = {},
): AuthorizeRequest => {
  const shell = extra.shell ?? (args.length === 0 && /\s/.test(command));
  const plan = shell
    ? { file: "/bin/bash", args: ["-c", command], shell }
    : { file: command, args, shell };
  const cwd = extra.cwd ?? "/";
  return {
    action: "create",
    owner,
    command,
    args,
    cwd,
    shell,
    env: [],
    ...resolvePlan(plan, cwd, process.env.PATH),
    sandbox: "off",
    ...extra,
  } as AuthorizeRequest;
};
const write: AuthorizeRequest = {
  action: "write",
  owner,
  command: "cat",
  args: [],
  cwd: "/",
  shell: false,
  env: [],
  program: "/usr/bin/cat",
  argv: ["cat"],
  sandbox: "off",
  terminalId: "t1",
  data: new Uint8Array(3),
  eof: false,
};

describe("allow patterns", () => {
  it.each<[string, AuthorizeRequest, boolean]>([
    ["git *", create("git"), true],
    ["git *", create("git", ["log", "-p"]), true],
    ["git *", create("git log -p"), true],
    ["git *", create("gitk"), false],
    ["git status", create("git", ["status", "-s"]), false],
    ["npm run test:*", create("npm", ["run", "test:unit"]), true],
    ["npm run test:*", create("npm", ["run", "build"]), false],
    ["git * --x", create("git", ["a", "--x"]), true],
    ["git * --x", create("git", ["a", "b", "--x"]), false],
    ["git *", create("git status; rm -rf ~"), false],
    ["git *", create("git status && rm x"), false],
    ["git *", create("git log $(id)"), false],
    ["git *", create("git\nrm x"), false],
    ["git *", create("git", ["status; rm -rf ~"]), true],
    ["git *", create("git", ["status"], { env: [{ name: "PATH", value: "/tmp" }] }), false],
    ["cat", write, false],
  ])("%j on %j: %s", (pattern, request, expected) => {
    expect(matchesAllowPattern(parseAllowPattern(pattern), request)).toBe(expected);
  });

  it("matches a hostile 1 MB argument in well under a second, whatever the stars (no backtracking blow-up to hang the CLI)", () => {
    const hostile = "src/" + "/".repeat(1_000_000) + "a";
    for (const pattern of ["cat src/*/*.ts", "cat *a*a*a*a*b", "cat */*/*/*"]) {
      const started = performance.now();
      expect(matchesAllowPattern(parseAllowPattern(pattern), create("cat", [hostile]))).toBe(
        pattern === "cat */*/*/*",
      );
      expect(performance.now() - started, pattern).toBeLessThan(1000);
    }
    // What stars match stays the same.
    for (const [pattern, word, expected] of [
      ["cat a*b*c", "aXbYc", true],
      ["cat a*b*c", "abcbc", true],
      ["cat a*b*c", "acb", false],
      ["cat *.ts", ".ts", true],
      ["cat a*a", "a", false],
      ["cat a*a", "aa", true],
      ["cat *x*", "x", true],
      ["cat ab*ba", "aba", false],
    ] as const) {
      expect(
        matchesAllowPattern(parseAllowPattern(pattern), create("cat", [word])),
        `${pattern} on ${word}`,
      ).toBe(expected);
    }
  });

  it.each([
    ["", /it is empty/],
    ["* x", /first word/],
    ["git 'a b'", /quotes/],
    ["git \\x", /backslashes/],
  ])("refuses %j", (pattern, message) => {
    expect(() => parseAllowPattern(pattern)).toThrow(message);
  });
});

describe("createApprovalPolicy", () => {
  it("refuses what no pattern allows when there is no one to ask, with the reason given", async () => {
    const policy = createApprovalPolicy({ allow: ["ls"], refusal: "pass --yes" });
    expect(await policy(create("ls"))).toBe(true);
    expect(await policy(create("rm", ["x"]))).toBe("pass --yes");
    expect(await policy(write)).toBe("pass --yes");
    expect(await createApprovalPolicy({ allowAll: true })(write)).toBe(true);
  });

  it("asks one question at a time and remembers allow_always for the same session only", async () => {
    const asked: AuthorizeRequest[] = [];
    const answers: ApprovalAnswer[] = ["allow_always", "deny", "allow_once"];
    let pending = 0;
    let most = 0;
    const policy = createApprovalPolicy({
      ask: async (request) => {
        asked.push(request);
        most = Math.max(most, ++pending);
        await new Promise((resolve) => setImmediate(resolve));
        pending -= 1;
        return answers.shift()!;
      },
    });
    const results = await Promise.all([
      policy(create("make")),
      policy(create("make")),
      policy(create("rm", ["x"])),
    ]);
    expect(results).toEqual([true, true, false]);
    expect(asked.map((r) => r.command)).toEqual(["make", "rm"]);
    expect(most).toBe(1);
    expect(
      await policy(create("make", [], { owner: { connectionId: "c", sessionId: "other" } })),
    ).toBe(true);
    expect(asked).toHaveLength(3);
  });

  it("allow_always covers the same program, arguments and cwd only: not another cwd, nor a program whose name holds the arguments", async () => {
    const asked: AuthorizeRequest[] = [];
    const policy = createApprovalPolicy({
      ask: (request) => {
        asked.push(request);
        return "allow_always";
      },
    });
    expect(await policy(create("make", [], { cwd: "/project" }))).toBe(true);
    expect(await policy(create("make", [], { cwd: "/project" }))).toBe(true);
    expect(asked).toHaveLength(1);
    // The same words elsewhere run another Makefile: asked again.
    expect(await policy(create("make", [], { cwd: "/tmp/elsewhere" }))).toBe(true);
    expect(asked).toHaveLength(2);
    expect(await policy(create("./run", ["x"], { cwd: "/p" }))).toBe(true);
    // A file named "./run x" (no arguments) is another program, although it reads the same.
    expect(await policy(create("./run x", [], { cwd: "/p", shell: false }))).toBe(true);
    expect(asked.map((r) => [r.command, ...r.args, r.cwd])).toEqual([
      ["make", "/project"],
      ["make", "/tmp/elsewhere"],
      ["./run", "x", "/p"],
      ["./run x", "/p"],
    ]);
  });
});
