import { describe, expect, it } from "vitest";
import { planCommand } from "../src/spawn/command.js";
import { commandEnvironment } from "../src/spawn/env.js";

const shell = () => "/bin/bash";

describe("planCommand", () => {
  it("runs a command with args directly, even an empty array, without quoting", () => {
    expect(planCommand("echo", ["a b", "$HOME", "'q'"], "auto", shell)).toEqual({
      file: "echo",
      args: ["a b", "$HOME", "'q'"],
      shell: false,
    });
    expect(planCommand("ls -la", [], "always", shell)).toEqual({
      file: "ls -la",
      args: [],
      shell: false,
    });
  });

  it.each([
    "ls -la",
    "a|b",
    "a&&b",
    "a;b",
    "a>b",
    "$(x)",
    "`x`",
    "a\\b",
    'say "hi"',
    "ls *.ts",
    "echo ~",
    "x=1",
    "a\nb",
    "{a,b}",
  ])("auto runs %j through the shell", (command) => {
    expect(planCommand(command, undefined, "auto", shell)).toEqual({
      file: "/bin/bash",
      args: ["-c", command],
      shell: true,
    });
  });

  it("auto runs a plain word directly; always and never force the choice", () => {
    expect(planCommand("pwd", undefined, "auto", shell)).toEqual({
      file: "pwd",
      args: [],
      shell: false,
    });
    expect(planCommand("pwd", null, "always", shell)).toEqual({
      file: "/bin/bash",
      args: ["-c", "pwd"],
      shell: true,
    });
    expect(planCommand("ls -la", undefined, "never", shell)).toEqual({
      file: "ls -la",
      args: [],
      shell: false,
    });
  });
});

describe("commandEnvironment", () => {
  it("puts the request on top of the base and adds PAGER=cat, GIT_PAGER=cat and SHLVL=1 unless either sets them", () => {
    expect(
      commandEnvironment({ A: "1", B: "2" }, [
        { name: "B", value: "3" },
        { name: "C", value: "4" },
      ]),
    ).toEqual({
      A: "1",
      B: "3",
      C: "4",
      PAGER: "cat",
      GIT_PAGER: "cat",
      SHLVL: "1",
    });
    expect(
      commandEnvironment({ PAGER: "less", SHLVL: "3" }, [{ name: "GIT_PAGER", value: "more" }]),
    ).toEqual({
      PAGER: "less",
      GIT_PAGER: "more",
      SHLVL: "3",
    });
  });

  it("takes an inherited SHLVL below 1 or not a whole number as unset (SHLVL=1), and keeps one the request sets", () => {
    for (const inherited of ["0", "-1", "abc", "", " ", "1.5", "0x2"]) {
      expect(commandEnvironment({ SHLVL: inherited }, []).SHLVL, `SHLVL=${inherited}`).toBe("1");
    }
    expect(commandEnvironment({ SHLVL: "2" }, []).SHLVL).toBe("2");
    expect(commandEnvironment({ SHLVL: "0" }, [{ name: "SHLVL", value: "0" }]).SHLVL).toBe("0");
  });
});
