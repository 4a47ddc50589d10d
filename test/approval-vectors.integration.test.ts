/**
 * The ways a hostile agent ran a program of its choosing under `--allow` patterns the READMEs
 * recommended, each through the real CLI (or the real MCP server), a real git and real files the
 * agent "prepared": a repository config that runs a program, git options that write files, a
 * cwd-relative PATH entry. With patterns only, each is refused (or runs what was approved); with
 * `--yes` inside a read-only or workspace-write sandbox (bubblewrap), each runs and creates
 * nothing outside the workspace. The marker the agent aims for is under /var/tmp, which no
 * sandbox hides.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { killAllStarted, nodeAgent, startCli } from "./fixtures/cli-process.js";
import { newMark, untilNoneMarked } from "./fixtures/demo-processes.js";
import { connectStdio, type McpTestClient, type ToolCallResult } from "./support/mcp-clients.js";
import { CLI, connectServer, markedEnv } from "./support/mcp-server.js";

const AGENT = fileURLToPath(new URL("./fixtures/approval-agent.mjs", import.meta.url));
const README = readFileSync(
  fileURLToPath(new URL("../packages/acp-terminal-mcp/README.md", import.meta.url)),
  "utf8",
);

let workspace: string;
let repo: string;
let outside: string;
let marker: string;
let mark: string | undefined;
const clients: McpTestClient[] = [];

const git = (...args: string[]) =>
  execFileSync("git", ["-c", "user.email=a@b", "-c", "user.name=a", ...args], { cwd: repo });

beforeEach(() => {
  workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "approval-ws-")));
  outside = mkdtempSync("/var/tmp/approval-outside-");
  marker = path.join(outside, "PWNED");
  repo = path.join(workspace, "repo");
  mkdirSync(repo);
  git("init", "-q");
  writeFileSync(path.join(repo, "f"), "one\n");
  git("add", "f");
  git("commit", "-qm", "one");
  writeFileSync(path.join(repo, "f"), "one\ntwo\n"); // a diff to show
});
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  if (mark !== undefined) {
    await untilNoneMarked(mark);
  }
  expect(killAllStarted()).toEqual([]);
  rmSync(workspace, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

/** The agent runs each create in turn; resolves with what it said about each. */
async function run(flags: string[], steps: object[], env?: NodeJS.ProcessEnv): Promise<string> {
  const cli = startCli(
    [
      "run",
      "--cwd",
      workspace,
      ...flags,
      "--agent",
      nodeAgent(AGENT, "creates", JSON.stringify(steps)),
      "go",
    ],
    env ? { env } : {},
  );
  const { code, stdout, stderr } = await cli.result();
  expect(code, stderr).toBe(0);
  return stdout;
}

const configSetsFsmonitor = () => git("config", "core.fsmonitor", `touch ${marker}; false`);
const config = () => readFileSync(path.join(repo, ".git", "config"), "utf8");
/** Writes `.git/config` so that the next git runs the marker command (git log's --output). */
const logOverwritesConfig = (output: string[]) => ({
  command: "git",
  args: ["log", "-1", ...output, `--format=[core]%nfsmonitor = touch ${marker}`],
  cwd: repo,
});
const diffOverwritesConfig = () => ({
  command: "git",
  args: ["diff", "--output=.git/config", `--line-prefix=[core]fsmonitor=touch ${marker} #`],
  cwd: repo,
});
const status = () => ({ command: "git", args: ["status"], cwd: repo });
/** A hook git status runs when it refreshes the index, and a tracked file whose stat changed. */
function hookOnIndexWrite(): void {
  const hook = path.join(repo, ".git", "hooks", "post-index-change");
  writeFileSync(hook, `#!/bin/sh\ntouch ${marker}\n`);
  chmodSync(hook, 0o755);
  utimesSync(path.join(repo, "f"), new Date(2001, 0, 1), new Date(2001, 0, 1));
}
/** A submodule whose own config (not the repository's) sets core.fsmonitor. */
function submoduleWithFsmonitor(): void {
  const lib = path.join(workspace, "lib");
  mkdirSync(lib);
  const inLib = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=a@b", "-c", "user.name=a", ...args], { cwd: lib });
  inLib("init", "-q");
  writeFileSync(path.join(lib, "l"), "l\n");
  inLib("add", "l");
  inLib("commit", "-qm", "l");
  git("-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "sub");
  git("commit", "-qm", "sub");
  execFileSync("git", ["config", "core.fsmonitor", `touch ${marker}; false`], {
    cwd: path.join(repo, "sub"),
  });
}

describe("patterns only: what the READMEs recommended no longer runs the agent's program", () => {
  it("--allow 'git status' in a repository whose own config sets core.fsmonitor: refused, naming the key", async () => {
    configSetsFsmonitor();
    const said = await run(["--allow", "git status"], [status()]);
    expect(said).toMatch(
      /^refused 0: -32603 Denied by the user: git status \(--allow 'git status' matches, but the repository's own git config sets core.fsmonitor/,
    );
    expect(existsSync(marker)).toBe(false);
  });

  it("--allow 'git status' with a post-index-change hook in .git/hooks: git runs without hooks nor index writes", async () => {
    hookOnIndexWrite();
    expect(await run(["--allow", "git status"], [status()])).toMatch(/^ran 0: exit 0 /);
    expect(existsSync(marker)).toBe(false);
  });

  it("--allow 'git status' with a submodule whose own config sets core.fsmonitor: refused, naming the submodule and the key", async () => {
    submoduleWithFsmonitor();
    expect(await run(["--allow", "git status"], [status()])).toMatch(
      /^refused 0: .*--allow 'git status' matches, but the submodule .*\/sub's git config sets core.fsmonitor/,
    );
    expect(existsSync(marker)).toBe(false);
  });

  it.each([
    ["--output=FILE", ["--output=.git/config"]],
    ["--output FILE", ["--output", ".git/config"]],
    ["an abbreviation, --out=FILE", ["--out=.git/config"]],
  ])(
    "--allow 'git log *': git log %s is refused, so the next approved git status runs git",
    async (_, output) => {
      const before = config();
      const said = await run(
        ["--allow", "git log *", "--allow", "git status"],
        [logOverwritesConfig(output), status()],
      );
      expect(said).toMatch(/^refused 0: .*--allow 'git log \*' matches, but git log "--out/);
      expect(said).toMatch(/\nran 1: exit 0 /);
      expect(config()).toBe(before);
      expect(existsSync(marker)).toBe(false);
    },
  );

  it("--allow 'git diff *': git diff --output with --line-prefix is refused", async () => {
    const before = config();
    const said = await run(
      ["--allow", "git diff *", "--allow", "git status"],
      [diffOverwritesConfig(), status()],
    );
    expect(said).toMatch(
      /^refused 0: .*git diff "--output=\.git\/config": not an option a pattern approves/,
    );
    expect(config()).toBe(before);
    expect(existsSync(marker)).toBe(false);
  });

  it.each([".", ""])(
    "a PATH entry %j: an approved ls runs the ls PATH's absolute entries find, not ./ls from the agent's cwd",
    async (entry) => {
      const trap = path.join(workspace, "trap");
      mkdirSync(trap);
      writeFileSync(path.join(trap, "ls"), `#!/bin/sh\ntouch ${marker}\necho trapped\n`);
      chmodSync(path.join(trap, "ls"), 0o755);
      const env = { ...process.env, PATH: `${entry}:${process.env.PATH ?? ""}` };
      const said = await run(
        ["--allow", "ls *"],
        [{ command: "ls", args: ["-a"], cwd: trap }],
        env,
      );
      expect(said).toMatch(/^ran 0: exit 0 ".*ls/s);
      expect(said).not.toContain("trapped");
      expect(existsSync(marker)).toBe(false);
    },
  );
});

describe("acp-terminal mcp: the same patterns, the same rules", () => {
  const structured = (result: ToolCallResult) => result.structuredContent!;
  async function server(args: string[]): Promise<McpTestClient> {
    mark = newMark();
    const client = await connectServer("v2", ["--workspace", workspace, ...args], mark);
    clients.push(client);
    return client;
  }

  it("--tools process --allow 'git log *' --allow 'git status *': a process_run chain that rewrites .git/config is refused", async () => {
    const client = await server([
      "--tools",
      "process",
      "--allow",
      "git log *",
      "--allow",
      "git status *",
    ]);
    const before = config();
    const log = logOverwritesConfig(["--output=.git/config"]);
    const wrote = structured(await client.callTool("process_run", log));
    expect((wrote.error as { message: string }).message).toContain(
      "--allow 'git log *' matches, but git log \"--output=.git/config\"",
    );
    expect(structured(await client.callTool("process_run", status()))).toMatchObject({
      exit_code: 0,
    });
    expect(config()).toBe(before);
    expect(existsSync(marker)).toBe(false);
  });

  it("the README's read-only helpers entry refuses git log --output to a file outside the workspace", async () => {
    const entry = /<!-- mcp-snippet: host-allow -->\n```json\n([\s\S]*?)\n```/.exec(README)![1]!;
    const args = (
      JSON.parse(entry) as { mcpServers: { terminals: { args: string[] } } }
    ).mcpServers.terminals.args
      .slice(1)
      .map((arg) => (arg === "/path/to/project" ? workspace : arg));
    const client = await server(args.slice(2)); // after --workspace DIR
    const victim = path.join(outside, "victim");
    writeFileSync(victim, "precious\n");
    // A line without shell syntax (no `=`), so the pattern's words match it.
    const answer = structured(
      await client.callTool("shell", { command: `git log --output ${victim} -1`, cwd: repo }),
    );
    expect((answer.error as { message: string }).message).toContain(
      "--allow 'git log *' matches, but git log \"--output\"",
    );
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
  });
});

describe.each(["read-only", "workspace-write"])(
  "--yes in a %s sandbox: each vector runs and creates nothing outside the workspace",
  (mode) => {
    const sandbox = ["--yes", "--sandbox", mode];

    it("git status in a repository whose config sets core.fsmonitor", async () => {
      configSetsFsmonitor();
      expect(await run(sandbox, [status()])).toMatch(/^ran 0: exit 0/);
      expect(existsSync(marker)).toBe(false);
    });

    it("git status with a post-index-change hook, and with a submodule whose config sets core.fsmonitor", async () => {
      submoduleWithFsmonitor();
      hookOnIndexWrite(); // after the set-up's own git commits, which would run it
      expect(existsSync(marker)).toBe(false);
      expect(await run(sandbox, [status()])).toMatch(/^ran 0: exit 0/);
      expect(existsSync(marker)).toBe(false);
    });

    it("git log --output=.git/config, then git status", async () => {
      const before = config();
      const said = await run(sandbox, [logOverwritesConfig(["--output=.git/config"]), status()]);
      expect(said).toMatch(/^ran 0: exit 128 .*Read-only file system/);
      expect(config()).toBe(before); // .git is read-only in workspace-write too
      expect(existsSync(marker)).toBe(false);
    });

    it("git diff --output=.git/config --line-prefix, then git status", async () => {
      const before = config();
      await run(sandbox, [diffOverwritesConfig(), status()]);
      expect(config()).toBe(before);
      expect(existsSync(marker)).toBe(false);
    });

    it("a command that writes outside the workspace directly, and one inside it", async () => {
      const said = await run(sandbox, [
        { command: "touch", args: [marker] },
        { command: "touch", args: [path.join(workspace, "inside")] },
      ]);
      expect(said).toMatch(/^ran 0: exit 1 .*Read-only file system/);
      expect(existsSync(marker)).toBe(false);
      expect(existsSync(path.join(workspace, "inside"))).toBe(mode === "workspace-write");
    });
  },
);

// --- What a rule approves runs confined (issue 30): G1, G2, G3, 6b, and no bubblewrap ---

const MISSING = "1".repeat(40);
/** G1: the repository's own config makes origin a promisor remote over `ext::`, whose lazy fetch runs the marker. */
function promisorRemote(config: (key: string, value: string) => void): void {
  config("remote.origin.url", `ext::sh -c touch% ${marker}`);
  config("remote.origin.promisor", "true");
  config("protocol.allow", "always");
}
const repoConfig = (key: string, value: string) => git("config", key, value);
/** HEAD names a commit the repository does not have: plain `git status` asks the promisor for it. */
function headMissing(): void {
  const branch = git("symbolic-ref", "HEAD").toString().trim();
  writeFileSync(path.join(repo, ".git", branch), `${MISSING}\n`);
}
const gitIn = (args: string[]) => ({ command: "git", args, cwd: repo });

/** A submodule `sub` with a changed file whose own config runs the marker from diff.external and a clean filter. */
function submoduleRunningPrograms(): void {
  submoduleWithFsmonitor();
  const sub = path.join(repo, "sub");
  const inSub = (...args: string[]) => execFileSync("git", args, { cwd: sub });
  inSub("config", "--unset", "core.fsmonitor");
  inSub("config", "diff.external", `touch ${marker}; false`);
  inSub("config", "filter.x.clean", `touch ${marker}; cat`);
  writeFileSync(path.join(sub, ".gitattributes"), "* filter=x\n");
  writeFileSync(path.join(sub, "l"), "l\nchanged\n");
}

describe("G1: a promisor remote whose lazy fetch runs a program", () => {
  it.each([
    ["git status", [] as string[], ["status"]],
    ["git show *", [], ["show", MISSING]],
    ["git log *", [], ["log", "-1", MISSING]],
    ["git diff *", [], ["diff", MISSING]],
  ])("--allow %j: refused, naming the key, and the fetch never runs", async (pattern, _, args) => {
    git("config", "core.repositoryformatversion", "1");
    git("config", "extensions.partialClone", "origin");
    promisorRemote(repoConfig);
    if (args[0] === "status") {
      headMissing();
    }
    const said = await run(["--allow", pattern], [gitIn(args)]);
    expect(said).toMatch(
      /^refused 0: .* matches, but the repository's own git config sets (extensions\.partialclone|remote\.origin\.url|remote\.origin\.promisor|protocol\.allow) .*which makes git fetch/,
    );
    expect(existsSync(marker)).toBe(false);
  });

  it("through acp-terminal mcp --tools process --allow 'git status' inside --workspace: refused, and the fetch never runs", async () => {
    mark = newMark();
    const client = await connectServer(
      "v2",
      ["--workspace", workspace, "--tools", "process", "--allow", "git status"],
      mark,
    );
    clients.push(client);
    git("config", "core.repositoryformatversion", "1");
    git("config", "extensions.partialClone", "origin");
    promisorRemote(repoConfig);
    headMissing();
    const answer = (await client.callTool("process_run", gitIn(["status"]))).structuredContent!;
    expect((answer.error as { message: string }).message).toMatch(/which makes git fetch/);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("G2: options and settings that open a submodule, whose own config runs a program", () => {
  it.each([
    ["git status *", ["status", "--short", "--ignore-submodules=none"]],
    ["git diff *", ["diff", "--ignore-submodules=none", "--submodule=diff"]],
    ["git show *", ["show", "--submodule=diff", "--ignore-submodules=none", "HEAD"]],
  ])("--allow %j, git %j: refused, and nothing in the submodule runs", async (pattern, args) => {
    submoduleRunningPrograms();
    const said = await run(["--allow", pattern], [gitIn(args)]);
    expect(said).toMatch(/^refused 0: .* matches, but /);
    expect(existsSync(marker)).toBe(false);
  });

  it.each(["git diff", "git show"])(
    "--allow %j with diff.submodule=diff and `ignore = none` in .gitmodules: refused, naming .gitmodules",
    async (pattern) => {
      submoduleRunningPrograms();
      execFileSync("git", ["config", "-f", ".gitmodules", "submodule.sub.ignore", "none"], {
        cwd: repo,
      });
      git("config", "diff.submodule", "diff");
      execFileSync("git", ["config", "--unset", "diff.external"], { cwd: path.join(repo, "sub") });
      execFileSync("git", ["config", "--unset", "filter.x.clean"], { cwd: path.join(repo, "sub") });
      execFileSync("git", ["config", "diff.external", `touch ${marker}; false`], {
        cwd: path.join(repo, "sub"),
      });
      const said = await run(["--allow", pattern], [gitIn(pattern.split(" ").slice(1))]);
      expect(said).toMatch(
        /^refused 0: .* matches, but the (repository's \.gitmodules sets submodule\.sub\.ignore|submodule .*sub's git config sets diff\.external)/,
      );
      expect(existsSync(marker)).toBe(false);
    },
  );
});

describe("G3: the user's own ~/.gitconfig (an agent wrote it), then an allowed git: what runs is confined", () => {
  /** A home directory the sandbox does not hide (/var/tmp), holding a .gitconfig. */
  function homeWithGitconfig(config: string): NodeJS.ProcessEnv {
    const home = path.join(outside, "home");
    mkdirSync(home);
    writeFileSync(path.join(home, ".gitconfig"), config);
    return { ...process.env, HOME: home };
  }
  const external = () => `[diff]\n\texternal = "echo EXTERNAL-RAN; touch ${marker}"\n`;

  it("~/.gitconfig sets diff.external, --allow 'git diff': it runs, read-only, and writes nothing", async () => {
    const said = await run(
      ["--allow", "git diff"],
      [gitIn(["diff"])],
      homeWithGitconfig(external()),
    );
    expect(said, said).toMatch(/^ran 0: exit \d+ .*EXTERNAL-RAN.*Read-only file system/s);
    expect(existsSync(marker)).toBe(false);
  });

  it("~/.gitconfig makes origin a promisor over ext::, --allow 'git show *': no transport runs, nothing is written", async () => {
    const home = homeWithGitconfig(
      `[remote "origin"]\n\turl = ext::sh -c touch% ${marker}\n\tpromisor = true\n[protocol]\n\tallow = always\n`,
    );
    const said = await run(["--allow", "git show *"], [gitIn(["show", MISSING])], home);
    expect(said).toMatch(
      /^ran 0: exit 128 .*(transport 'ext' not allowed|lazy fetching disabled)/s,
    );
    expect(existsSync(marker)).toBe(false);
  });

  it("through acp-terminal mcp --tools process --allow 'git diff': it runs, read-only, and writes nothing", async () => {
    mark = newMark();
    const env = homeWithGitconfig(external());
    const client = await connectStdio("v2", {
      command: process.execPath,
      args: [CLI, "mcp", "--workspace", workspace, "--tools", "process", "--allow", "git diff"],
      env: { ...markedEnv(mark), HOME: env.HOME! },
    });
    clients.push(client);
    const answer = (await client.callTool("process_run", gitIn(["diff"]))).structuredContent!;
    expect(JSON.stringify(answer), JSON.stringify(answer)).toContain("EXTERNAL-RAN");
    expect(existsSync(marker), JSON.stringify(answer)).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("6b: a rule applies under the session's cwd, not in any directory the agent names", () => {
  /** A Makefile in `dir` whose default target says so and writes the marker. */
  function makefileIn(dir: string): void {
    writeFileSync(path.join(dir, "Makefile"), `all:\n\t@echo MAKEFILE-RAN\n\t@touch ${marker}\n`);
  }
  const make = (cwd: string) => ({ command: "make", args: [], cwd });

  it("--allow make: the Makefile of a directory outside the session's is not run; a symlink into it neither", async () => {
    makefileIn(outside);
    symlinkSync(outside, path.join(workspace, "link"));
    const said = await run(
      ["--allow", "make"],
      [make(outside), make(path.join(workspace, "link"))],
    );
    expect(said).toMatch(
      /^refused 0: .*--allow 'make' matches, but it runs in .*, outside the session's directory/,
    );
    expect(said).toMatch(/\nrefused 1: .*outside the session's directory/);
    expect(said).not.toContain("MAKEFILE-RAN");
    expect(existsSync(marker)).toBe(false);
  });

  it("--allow make under the session's cwd, or elsewhere with --allow-anywhere: it runs, confined", async () => {
    makefileIn(outside);
    const project = path.join(workspace, "project");
    mkdirSync(project);
    makefileIn(project);
    const said = await run(["--allow", "make", "--allow-anywhere"], [make(outside), make(project)]);
    expect(said).toMatch(/^ran 0: exit 2 .*MAKEFILE-RAN.*Read-only file system/s);
    expect(said).toMatch(/\nran 1: exit 2 .*MAKEFILE-RAN.*Read-only file system/s);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("what a rule approves has no network, and where bubblewrap is missing rules approve nothing", () => {
  it("a pattern-approved command has no route out: its network namespace has only loopback", async () => {
    const said = await run(
      ["--allow", "cat /proc/net/route"],
      [{ command: "cat", args: ["/proc/net/route"] }],
    );
    expect(said).toMatch(/^ran 0: exit 0 "Iface\\tDestination/);
    // The header alone: no line for an interface (the host's has its default route's).
    expect(said).not.toMatch(/\\n\w+\\t/);
  });

  it("a pattern-approved command writes neither the home directory nor .git, and has a /tmp of its own", async () => {
    const home = path.join(outside, "home");
    mkdirSync(home);
    writeFileSync("/tmp/acp-terminal-host-tmp-probe", "");
    try {
      const said = await run(
        ["--allow", "touch *", "--allow", "ls *"],
        [
          { command: "touch", args: [path.join(home, ".bashrc")] },
          { command: "touch", args: [path.join(repo, ".git", "hooks", "pre-commit")] },
          { command: "ls", args: ["/tmp"] },
        ],
        { ...process.env, HOME: home },
      );
      expect(said).toMatch(/^ran 0: exit 1 .*Read-only file system/);
      expect(said).toMatch(/\nran 1: exit 1 .*Read-only file system/);
      expect(said).toMatch(/\nran 2: exit 0 /);
      expect(said).not.toContain("acp-terminal-host-tmp-probe"); // not the host's /tmp
      expect(existsSync(path.join(home, ".bashrc"))).toBe(false);
      expect(existsSync(path.join(repo, ".git", "hooks", "pre-commit"))).toBe(false);
    } finally {
      rmSync("/tmp/acp-terminal-host-tmp-probe", { force: true });
    }
  });

  it("without bwrap on PATH, --allow approves nothing and the refusal names what to install", async () => {
    const bin = path.join(workspace, "bin");
    mkdirSync(bin);
    for (const program of ["ls", "sh", "bash", "env"]) {
      const found = execFileSync("sh", ["-c", `command -v ${program}`], {
        encoding: "utf8",
      }).trim();
      symlinkSync(found, path.join(bin, program));
    }
    const said = await run(["--allow", "ls"], [{ command: "ls", args: [], cwd: workspace }], {
      ...process.env,
      PATH: bin,
    });
    expect(said).toMatch(
      /^refused 0: .*--allow 'ls' matches, but what a rule approves runs in a read-only sandbox, which cannot be had here: bwrap was not found on PATH: install bubblewrap \(Debian, Ubuntu: apt-get install bubblewrap/,
    );
  });
});
