/**
 * The remote helper's wire protocol (docs/remote-helper.md) from the agent's end, on this machine:
 * the agent started as the host starts it, lines written as the host writes them, and each
 * terminal's wrapper run as its session would, under dash, busybox sh and bash.
 */
import { spawn, spawnSync, type ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { readdirSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { BOOTSTRAP, HELPER_SCRIPT } from "../src/executors/remote-helper.js";
import { encodeSpec, specLines } from "../src/executors/remote-spec.js";
import { until } from "../../../test/support/until.js";

const SHELLS = [["dash"], ["busybox", "sh"], ["bash"]].filter(
  ([file]) => spawnSync("sh", ["-c", `command -v ${file}`]).status === 0,
);

interface Agent {
  agent: ChildProcessByStdio<Writable, Readable, null>;
  dir: string;
  lines: string[];
  next(test: (line: string) => boolean): Promise<string>;
  /** Hands the agent a spec and runs its wrapper to the end; resolves with its report. */
  run(token: string, file: string, args: string[], cwd?: string): Promise<string>;
}

/** The agent under `shell`, as a control session starts it, with its lines collected. */
async function startAgent(shell: string[]): Promise<Agent> {
  const agent = spawn(
    shell[0]!,
    [...shell.slice(1), "-c", BOOTSTRAP, "acp-terminal", HELPER_SCRIPT, "f00d", "20"],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines: string[] = [];
  const waiting: [(line: string) => boolean, (line: string) => void][] = [];
  createInterface({ input: agent.stdout }).on("line", (line) => {
    lines.push(line);
    for (const [test, done] of waiting.splice(0)) {
      if (test(line)) {
        done(line);
      } else {
        waiting.push([test, done]);
      }
    }
  });
  const next = (test: (line: string) => boolean): Promise<string> =>
    new Promise((resolve) => {
      const found = lines.find(test);
      if (found) {
        resolve(found);
      } else {
        waiting.push([test, resolve]);
      }
    });
  const [, dir = "", pid = ""] = (await next((line) => line.startsWith("ready "))).split(" ");
  const run = async (token: string, file: string, args: string[], cwd = "/tmp") => {
    const spec = encodeSpec({
      file,
      args,
      cwd,
      env: { A_B: "x" },
      stdin: false,
      shell: false,
      marker: `f00d.${token}`,
    });
    agent.stdin.write(`spec ${token} ${specLines(spec)}\n`);
    agent.stdin.write(spec);
    spawnSync(shell[0]!, [...shell.slice(1), `${dir}/h.sh`, "wrap", token, "pipe", pid], {
      stdio: "ignore",
    });
    return next((line) => line.startsWith(`exit ${token} `) || line.startsWith(`failed ${token} `));
  };
  return { agent, dir, lines, next, run };
}

async function stop({ agent }: Agent): Promise<void> {
  agent.stdin.end();
  await new Promise((resolve) => agent.once("close", resolve));
}

/** Processes whose command line names a file in `dir` (the helper's roles run `sh DIR/h.sh`). */
function helperProcesses(dir: string): string[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, "latin1");
        return cmdline.includes(`${dir}/h.sh\0`) ? [cmdline.replaceAll("\0", " ")] : [];
      } catch {
        return []; // exited meanwhile
      }
    });
}

describe.each(SHELLS)("the helper under %s", (...shell) => {
  it("reports exact statuses, a failed cwd and program, and answers pings after them", async () => {
    const helper = await startAgent(shell);
    const { run, next, lines, dir } = helper;
    try {
      expect(await run("a1", "sh", ["-c", "exit 130"])).toBe("exit a1 130 - 0");
      expect(await run("a2", "sh", ["-c", "kill -INT $$"])).toBe("exit a2 - SIGINT 0");
      expect(await run("a3", "sh", ["-c", "kill -KILL $$"])).toBe("exit a3 - SIGKILL 0");
      expect(await run("a4", "true", [], "/nonexistent")).toBe(
        "failed a4 cwd 2 No such file or directory",
      );
      expect(await run("a5", "no-such-program", [])).toBe(
        "failed a5 exec 2 No such file or directory",
      );
      helper.agent.stdin.write("ping 7\n");
      expect(await next((line) => line.startsWith("pong "))).toBe("pong 7");
      expect(lines.filter((line) => line.startsWith("started "))).toHaveLength(3);
    } finally {
      await stop(helper);
    }
    expect(spawnSync("test", ["-e", dir]).status).toBe(1); // the agent removed its directory
  });

  it("sees an exit after the fast polls and one that leaves a child running, and leaves only the agent", async () => {
    const helper = await startAgent(shell);
    try {
      expect(await helper.run("b1", "sh", ["-c", "sleep 0.3; exit 3"])).toBe("exit b1 3 - 0");
      expect(await helper.run("b2", "sh", ["-c", "sleep 5 & exit 4"])).toBe("exit b2 4 - 1");
      // The sleep still holds the output, yet every wrapper and poller ends: the agent's
      // processes alone are left.
      await until(
        () => helperProcesses(helper.dir).every((cmdline) => / agent f00d /.test(cmdline)),
        { timeoutMs: 3000, message: "the wrappers and pollers to end" },
      );
      helper.agent.stdin.write("release b2\n");
      await helper.next((line) => line === "released b2");
      expect(helper.lines.filter((line) => line.startsWith("exit "))).toHaveLength(2);
    } finally {
      await stop(helper);
    }
    // The agent's own subshells (a release's sweep, the watchdog) end with it.
    await until(() => helperProcesses(helper.dir).length === 0, {
      timeoutMs: 3000,
      message: "the agent's processes to end",
    });
  });
});

describe("the spec", () => {
  it("refuses an environment variable name env would read as an option or split (-S, -i, a=b, empty), naming it", () => {
    for (const name of ["-S", "-i", "a=b", ""]) {
      const spec = () =>
        encodeSpec({
          file: "/usr/bin/true",
          args: [],
          cwd: "/tmp",
          env: { [name]: "x /usr/bin/echo HIJACK" },
          stdin: false,
          shell: false,
          marker: "f00d.t",
        });
      expect(spec).toThrow(/cannot be set on the remote side/);
      expect(spec).toThrow(JSON.stringify(name));
    }
  });
});
