import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createApprovalPolicy, type ApprovalAnswer } from "../src/approval/approval-policy.js";
import { matchesAllowPattern, parseAllowPattern } from "../src/approval/allow-pattern.js";
import { describeAuthorizeRequest, MAX_QUESTION_CHARS } from "../src/approval/describe-request.js";
import { printable } from "../src/approval/visible-text.js";
import type { ApprovalRequest, AuthorizeFileWrite, AuthorizeRequest } from "../src/host/types.js";
import { resolvePlan } from "../src/spawn/resolve-program.js";
import { GIT_NEUTRAL_ENV } from "../src/approval/program-rules.js";

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
    sessionCwd: "/",
    ...extra,
  } as AuthorizeRequest;
};
/** What a rule approves: run confined (the read-only sandbox, no network). */
const CONFINED = { allow: true, confined: true };
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
  sessionCwd: "/",
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
    expect(await policy(create("ls"))).toEqual(CONFINED);
    expect(await policy(create("rm", ["x"]))).toBe("pass --yes");
    expect(await policy(write)).toBe("pass --yes");
    expect(await createApprovalPolicy({ allowAll: true })(write)).toBe(true);
  });

  it("asks one question at a time and remembers allow_always for the same session only", async () => {
    const asked: ApprovalRequest[] = [];
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
    // The second make waited for the first question, answered "always": a rule now, so confined.
    expect(results).toEqual([true, CONFINED, false]);
    expect(asked.map((r) => ("command" in r ? r.command : r.path))).toEqual(["make", "rm"]);
    expect(most).toBe(1);
    expect(
      await policy(create("make", [], { owner: { connectionId: "c", sessionId: "other" } })),
    ).toBe(true);
    expect(asked).toHaveLength(3);
  });

  it("allow_always covers the same program, arguments and cwd only: not another cwd, nor a program whose name holds the arguments", async () => {
    const asked: ApprovalRequest[] = [];
    const policy = createApprovalPolicy({
      ask: (request) => {
        asked.push(request);
        return "allow_always";
      },
    });
    expect(await policy(create("make", [], { cwd: "/project" }))).toBe(true);
    expect(await policy(create("make", [], { cwd: "/project" }))).toEqual(CONFINED);
    expect(asked).toHaveLength(1);
    // The same words elsewhere run another Makefile: asked again.
    expect(await policy(create("make", [], { cwd: "/tmp/elsewhere" }))).toBe(true);
    expect(asked).toHaveLength(2);
    expect(await policy(create("./run", ["x"], { cwd: "/p" }))).toBe(true);
    // A file named "./run x" (no arguments) is another program, although it reads the same.
    expect(await policy(create("./run x", [], { cwd: "/p", shell: false }))).toBe(true);
    expect(asked.map((r) => ("command" in r ? [r.command, ...r.args, r.cwd] : []))).toEqual([
      ["make", "/project"],
      ["make", "/tmp/elsewhere"],
      ["./run", "x", "/p"],
      ["./run x", "/p"],
    ]);
  });
});

describe("a client's file write, asked like a command", () => {
  const write = (file: string, cwd = "/work"): AuthorizeFileWrite => ({
    action: "write_file",
    owner,
    path: file,
    cwd,
    byteLength: 12,
    exists: false,
  });

  it("only write: patterns match it, relative to the cwd (never past it) or absolute; no command pattern does, nor a write: pattern a command", () => {
    const src = parseAllowPattern("write:src/*");
    expect(matchesAllowPattern(src, write("/work/src/a/b.ts"))).toBe(true);
    expect(matchesAllowPattern(src, write("/work/docs/a.md"))).toBe(false);
    expect(matchesAllowPattern(src, write("/elsewhere/src/a.ts"))).toBe(false);
    expect(matchesAllowPattern(src, write("/work/src/a.ts", "/work/src"))).toBe(false);
    expect(matchesAllowPattern(parseAllowPattern("write:/tmp/*.log"), write("/tmp/x.log"))).toBe(
      true,
    );
    expect(matchesAllowPattern(parseAllowPattern("write *"), write("/work/x"))).toBe(false);
    expect(matchesAllowPattern(src, create("src/x"))).toBe(false);
    expect(() => parseAllowPattern("write:")).toThrow(/a file pattern is write: and one path/);
    expect(() => parseAllowPattern("write:a b")).toThrow(/a file pattern is write: and one path/);
  });

  it("is described with its file and cwd, and allow_always covers the same file only", async () => {
    expect(describeAuthorizeRequest(write("/work/notes.txt"))).toEqual([
      "/work/notes.txt (12 bytes, a new file)",
      "  file: /work/notes.txt",
      "  cwd: /work",
    ]);
    const asked: ApprovalRequest[] = [];
    const policy = createApprovalPolicy({
      ask: (request) => {
        asked.push(request);
        return "allow_always";
      },
    });
    expect(await policy(write("/work/a"))).toBe(true);
    expect(await policy(write("/work/a"))).toBe(true);
    expect(await policy(write("/work/b"))).toBe(true);
    expect(asked).toHaveLength(2);
    const refusing = createApprovalPolicy({ allow: ["write:*.txt"] });
    expect(await refusing(write("/work/a.txt"))).toBe(true);
    expect(await refusing(write("/work/a.md"))).toBe(
      "not approved: no allow pattern matches and there is no one to ask",
    );
  });
});

describe("patterns name the program PATH finds, or an absolute path", () => {
  const git = create("git", ["status"]).program!;

  it("an absolute path matches the program however it is named; a name only that name on PATH", () => {
    expect(matchesAllowPattern(parseAllowPattern(`${git} status`), create("git", ["status"]))).toBe(
      true,
    );
    expect(matchesAllowPattern(parseAllowPattern(`${git} status`), create(git, ["status"]))).toBe(
      true,
    );
    expect(matchesAllowPattern(parseAllowPattern("git status"), create(git, ["status"]))).toBe(
      false,
    );
    // A file named git in the agent's cwd is not the git PATH finds.
    expect(matchesAllowPattern(parseAllowPattern("git status"), create("./git", ["status"]))).toBe(
      false,
    );
    expect(matchesAllowPattern(parseAllowPattern("nosuchprogram"), create("nosuchprogram"))).toBe(
      false,
    );
  });

  it("refuses a relative path as a pattern's program", () => {
    expect(() => parseAllowPattern("./run x")).toThrow(/absolute path/);
  });
});

describe("git under an allow pattern: only reading subcommands with options that only read", () => {
  const policy = createApprovalPolicy({ allow: ["git *"], refusal: "no" });
  it.each([
    ["status", "-s"],
    ["status", "--porcelain=v2", "-uno"],
    ["log", "--oneline", "-n", "5", "--", "--output=x"],
    ["log", "-5", "--format=%h %s", "--author", "me"],
    ["diff", "--stat", "HEAD~1", "-U3", "--no-ext-diff"],
    ["show", "HEAD", "--name-only"],
    ["--no-pager", "log", "-1"],
    ["--version"],
  ])(
    "approves git %s, with the repository's program-running config turned off",
    async (...args) => {
      expect(await policy(create("git", args))).toEqual({ ...CONFINED, env: GIT_NEUTRAL_ENV });
    },
  );

  it.each([
    [["log", "--output=x"], 'git log "--output=x"'],
    [["log", "--output", "x"], 'git log "--output"'],
    [["log", "--out=x"], 'git log "--out=x"'],
    [["diff", "--line-prefix=[core]"], 'git diff "--line-prefix=[core]"'],
    [["diff", "--ext-diff"], 'git diff "--ext-diff"'],
    [["-c", "core.pager=sh", "log"], 'git "-c" before the subcommand'],
    [["-C", "/elsewhere", "status"], 'git "-C" before the subcommand'],
    [["--exec-path=/tmp", "status"], 'git "--exec-path=/tmp" before the subcommand'],
    [["commit", "-m", "x"], 'git "commit": a pattern approves only git status, diff, log, show'],
    [["fetch", "--upload-pack=sh"], 'git "fetch"'],
    [["status", "-c"], 'git status "-c"'],
  ])("refuses git %j, saying why", async (args, why) => {
    expect(await policy(create("git", args))).toContain(`--allow 'git *' matches, but ${why}`);
  });
});

describe("a question shows every character and cuts nothing", () => {
  it("escapes invisible characters, counts runs of blanks, marks a continued line", () => {
    expect(printable("a  b")).toBe("a⟨2 spaces⟩b");
    expect(printable(`ls${" ".repeat(600)}; touch M`)).toBe("ls⟨600 spaces⟩; touch M");
    expect(printable("\x1b[2J\u202e\u200b\u00a0\u2028x")).toBe(
      "\\x1b[2J\\u{202e}\\u{200b}\\xa0\\u{2028}x",
    );
    expect(printable("⟨3 spaces⟩")).toBe("\\u{27e8}3 spaces\\u{27e9}"); // cannot be forged
    expect(printable("a\nb\n")).toBe("a\\x0a\n    │ b\\x0a");
    expect(printable("x".repeat(10_000))).toHaveLength(10_000);
  });

  it("shows every blank-rendering character as an escape, decided by Unicode properties: braille blank, Hangul fillers, tags, any space but U+0020", () => {
    // Q1: 7,000 braille blanks between `ls -la` and `; touch M` read as blank rows.
    expect(printable(`ls -la${"\u2800".repeat(7000)}; touch M`)).toBe(
      "ls -la⟨7000 × \\u{2800}⟩; touch M",
    );
    expect(printable("a\u3164b\uffa0c\u115fd\u1160e")).toBe(
      "a\\u{3164}b\\u{ffa0}c\\u{115f}d\\u{1160}e",
    );
    expect(printable("x\u{e0041}\u{e007f}\u2063\u180e\u3000\u205f\ufeff")).toBe(
      "x\\u{e0041}\\u{e007f}\\u{2063}\\u{180e}\\u{3000}\\u{205f}\\u{feff}",
    );
    // A combining mark on ASCII changes what it reads as: `=` + U+0338 is `≠`.
    expect(printable("a=\u0338b")).toBe("a=\\u{0338}b");
    expect(printable("é, ü, ñ, ক্ষি")).toBe("é, ü, ñ, ক্ষি"); // precomposed, and an Indic cluster
    // Markers cannot be forged, nor a run of escapes.
    expect(printable("⟨7000 × \\u{2800}⟩")).toBe("\\u{27e8}7000 × \\u{2800}\\u{27e9}");
  });

  it("leaves no code point that a font draws blank or not at all unescaped, in the whole of Unicode", () => {
    const blank =
      /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zs}\p{Zl}\p{Zp}\p{White_Space}\p{Default_Ignorable_Code_Point}\u2800]/u;
    const missed: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      // U+0020 is shown as itself (runs counted); a line feed as \x0a and a marked line.
      if (code === 0x20 || code === 0x0a || (code >= 0xd800 && code <= 0xdfff)) {
        continue;
      }
      const c = String.fromCodePoint(code);
      if (blank.test(c) && new RegExp(blank.source, "u").test(printable(`a${c}b`))) {
        missed.push(code.toString(16));
      }
    }
    expect(missed).toEqual([]);
  });

  it("describes the program, cwd, every env variable and the sandbox; a request too long to show is refused unasked", async () => {
    const request = create("git", ["status"], {
      cwd: "/w",
      env: Array.from({ length: 30 }, (_, i) => ({ name: `V${i}`, value: "x" })),
      sandbox: "read-only",
    });
    const lines = describeAuthorizeRequest(request);
    expect(lines[0]).toBe("git status");
    expect(lines[1]).toBe(`  program: ${request.program}`);
    expect(lines).toContain("  cwd: /w");
    expect(lines.find((line) => line.startsWith("  env: "))).toContain("V29=x");
    expect(lines.at(-1)).toContain("sandbox: read-only");
    let asked = 0;
    const policy = createApprovalPolicy({ ask: () => (asked++, "allow_once") });
    expect(await policy(create("echo", ["x".repeat(MAX_QUESTION_CHARS)]))).toMatch(
      /^not asked: it takes \d+ characters to show whole/,
    );
    expect(asked).toBe(0);
  });
});

describe("git under an allow pattern: a repository whose own config runs a program", () => {
  it("is refused, also when the key comes from a file its config includes; the user's own config is not looked at", async () => {
    const repo = mkdtempSync(path.join(tmpdir(), "approval-git-"));
    try {
      execFileSync("git", ["init", "-q"], { cwd: repo });
      const policy = createApprovalPolicy({ allow: ["git status"], refusal: "no" });
      const status = create("git", ["status"], { cwd: repo, sessionCwd: repo });
      expect(await policy(status)).toMatchObject(CONFINED);
      writeFileSync(path.join(repo, "extra.cfg"), '[diff "x"]\n\ttextconv = sh -c id\n');
      execFileSync("git", ["config", "include.path", "../extra.cfg"], { cwd: repo });
      expect(await policy(status)).toContain(
        'the repository\'s own git config sets diff.x.textconv ("sh -c id")',
      );
      execFileSync("git", ["config", "--unset", "include.path"], { cwd: repo });
      execFileSync("git", ["config", "core.fsmonitor", "false"], { cwd: repo });
      expect(await policy(status)).toMatchObject(CONFINED); // turned off
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});

describe("git under an allow pattern: the environment it runs with, should a check be raced", () => {
  it("no transport runs, not even one the repository allows by name (protocol.ext.allow), so a promisor's lazy fetch runs nothing", () => {
    const repo = mkdtempSync(path.join(tmpdir(), "approval-git-"));
    const marker = path.join(repo, "M");
    try {
      const git = (...args: string[]) => execFileSync("git", args, { cwd: repo });
      git("init", "-q");
      git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x");
      git("config", "core.repositoryformatversion", "1");
      git("config", "extensions.partialClone", "origin");
      git("config", "remote.origin.url", `ext::sh -c touch% ${marker}`);
      git("config", "remote.origin.promisor", "true");
      git("config", "protocol.ext.allow", "always");
      const env = { ...process.env };
      for (const { name, value } of GIT_NEUTRAL_ENV) {
        env[name] = value;
      }
      const show = spawnSync("git", ["show", "1".repeat(40)], { cwd: repo, env, encoding: "utf8" });
      expect(show.status).toBe(128);
      expect(existsSync(marker)).toBe(false);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});
