/**
 * The remote helper's wire protocol (docs/remote-helper.md) from the agent's end, on this machine:
 * the agent started as the host starts it, lines written as the host writes them, and each
 * terminal's wrapper run as its session would, under dash, busybox sh and bash.
 */
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { BOOTSTRAP, HELPER_SCRIPT } from "../src/executors/remote-helper.js";
import { encodeSpec, specLines } from "../src/executors/remote-spec.js";

const SHELLS = [["dash"], ["busybox", "sh"], ["bash"]].filter(
  ([file]) => spawnSync("sh", ["-c", `command -v ${file}`]).status === 0,
);

describe.each(SHELLS)("the helper under %s", (...shell) => {
  it("reports exact statuses, a failed cwd and program, and answers pings after them", async () => {
    const agent = spawn(
      shell[0]!,
      [...shell.slice(1), "-c", BOOTSTRAP, "acp-terminal", HELPER_SCRIPT, "f00d", "20"],
      {
        stdio: ["pipe", "pipe", "inherit"],
      },
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
    const [, dir, pid] = (await next((line) => line.startsWith("ready "))).split(" ");
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
      spawnSync(shell[0]!, [...shell.slice(1), `${dir}/h.sh`, "wrap", token, "pipe", pid!], {
        stdio: "ignore",
      });
      return next(
        (line) => line.startsWith(`exit ${token} `) || line.startsWith(`failed ${token} `),
      );
    };
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
      agent.stdin.write("ping 7\n");
      expect(await next((line) => line.startsWith("pong "))).toBe("pong 7");
      expect(lines.filter((line) => line.startsWith("started "))).toHaveLength(3);
    } finally {
      agent.stdin.end();
      await new Promise((resolve) => agent.once("close", resolve));
    }
    expect(spawnSync("test", ["-e", dir!]).status).toBe(1); // the agent removed its directory
  });
});
