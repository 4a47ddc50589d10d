import { describe, expect, it } from "vitest";
import {
  DEFAULT_LOG_LINES,
  DEFAULT_RUN_TIMEOUT_S,
  MAX_LOG_LINES,
  parseCommand,
  type Command,
} from "../src/parse.js";

function invalidMessage(command: Command): string {
  expect(command.name).toBe("invalid");
  return (command as { message: string }).message;
}

describe("parseCommand", () => {
  it("run: the rest of the prompt is the command line, as typed", () => {
    expect(parseCommand("run ls -la | grep 'a  b'")).toEqual({
      name: "run",
      command: "ls -la | grep 'a  b'",
      timeoutSeconds: DEFAULT_RUN_TIMEOUT_S,
    });
    expect(parseCommand("  RUN   echo hi  ")).toEqual({
      name: "run",
      command: "echo hi",
      timeoutSeconds: DEFAULT_RUN_TIMEOUT_S,
    });
  });

  it("run --timeout S (also --timeout=S, fractions)", () => {
    expect(parseCommand("run --timeout 5 make test")).toEqual({
      name: "run",
      command: "make test",
      timeoutSeconds: 5,
    });
    expect(parseCommand("run --timeout=0.5 sleep 1")).toEqual({
      name: "run",
      command: "sleep 1",
      timeoutSeconds: 0.5,
    });
  });

  it("run --idle S: also stopped after S seconds without output; the flags in any order", () => {
    expect(parseCommand("run --idle 2 tail -f log")).toEqual({
      name: "run",
      command: "tail -f log",
      timeoutSeconds: DEFAULT_RUN_TIMEOUT_S,
      idleSeconds: 2,
    });
    expect(parseCommand("run --idle=0.5 --timeout 5 make")).toEqual({
      name: "run",
      command: "make",
      timeoutSeconds: 5,
      idleSeconds: 0.5,
    });
    expect(invalidMessage(parseCommand("run --idle never make"))).toBe(
      'run --idle expects a number of seconds above 0, received "never".',
    );
    expect(parseCommand("run make --idle 2")).toEqual({
      name: "run",
      command: "make --idle 2",
      timeoutSeconds: DEFAULT_RUN_TIMEOUT_S,
    });
  });

  it("kill --signal NAME: the signal before the id", () => {
    expect(parseCommand("kill --signal SIGINT run_1")).toEqual({
      name: "kill",
      id: "run_1",
      signal: "SIGINT",
    });
    expect(parseCommand("kill --signal=sigint run_1")).toEqual({
      name: "kill",
      id: "run_1",
      signal: "sigint",
    });
    expect(parseCommand("kill run_1")).toEqual({ name: "kill", id: "run_1" });
    expect(invalidMessage(parseCommand("kill --signal SIGINT"))).toContain(
      "kill expects one run id",
    );
  });

  it("run: a bad timeout or no command says what is expected", () => {
    expect(invalidMessage(parseCommand("run --timeout soon make"))).toContain('received "soon"');
    expect(invalidMessage(parseCommand("run --timeout 0 make"))).toContain("above 0");
    expect(invalidMessage(parseCommand("run --timeout 5"))).toContain("run needs a command");
    expect(invalidMessage(parseCommand("run"))).toContain("run needs a command");
  });

  it("bg keeps the command line whole", () => {
    expect(parseCommand("bg npm run build && echo ok")).toEqual({
      name: "bg",
      command: "npm run build && echo ok",
      stdin: false,
      pty: false,
    });
    expect(invalidMessage(parseCommand("bg"))).toContain("bg needs a command");
  });

  it("bg --stdin and --pty come before the command; later flags belong to the command", () => {
    expect(parseCommand("bg --stdin python3 -i")).toEqual({
      name: "bg",
      command: "python3 -i",
      stdin: true,
      pty: false,
    });
    expect(parseCommand("bg --pty --stdin top")).toEqual({
      name: "bg",
      command: "top",
      stdin: true,
      pty: true,
    });
    expect(parseCommand("bg grep --stdin x")).toEqual({
      name: "bg",
      command: "grep --stdin x",
      stdin: false,
      pty: false,
    });
    expect(parseCommand("bg --stdinx")).toEqual({
      name: "bg",
      command: "--stdinx",
      stdin: false,
      pty: false,
    });
    expect(invalidMessage(parseCommand("bg --pty"))).toContain("bg needs a command");
  });

  it("send: a run id and the rest of the prompt as text; --eof closes stdin, with or without text", () => {
    expect(parseCommand("send run_1 yes  please")).toEqual({
      name: "send",
      id: "run_1",
      text: "yes  please",
      eof: false,
    });
    expect(parseCommand("send --eof run_1")).toEqual({
      name: "send",
      id: "run_1",
      text: null,
      eof: true,
    });
    expect(parseCommand("send --eof run_1 bye")).toEqual({
      name: "send",
      id: "run_1",
      text: "bye",
      eof: true,
    });
    expect(invalidMessage(parseCommand("send run_1"))).toContain(
      "send expects a run id and a line of text",
    );
    expect(invalidMessage(parseCommand("send"))).toContain("send expects");
    expect(invalidMessage(parseCommand("send --eof"))).toContain("send expects");
  });

  it("keys: a run id and at least one key", () => {
    expect(parseCommand("keys run_3 y Enter")).toEqual({
      name: "keys",
      id: "run_3",
      keys: ["y", "Enter"],
    });
    expect(parseCommand("keys run_3 C-c")).toEqual({ name: "keys", id: "run_3", keys: ["C-c"] });
    expect(invalidMessage(parseCommand("keys run_3"))).toContain(
      "keys expects a run id and key names",
    );
  });

  it("poll and kill take exactly one id", () => {
    expect(parseCommand("poll run_1a2b")).toEqual({ name: "poll", id: "run_1a2b" });
    expect(parseCommand("kill run_1a2b")).toEqual({ name: "kill", id: "run_1a2b" });
    expect(invalidMessage(parseCommand("poll"))).toContain("poll expects one run id");
    expect(invalidMessage(parseCommand("kill a b"))).toContain("kill expects one run id");
  });

  it("log takes an id and an optional line count within 1..MAX_LOG_LINES", () => {
    expect(parseCommand("log run_1")).toEqual({
      name: "log",
      id: "run_1",
      lines: DEFAULT_LOG_LINES,
    });
    expect(parseCommand("log run_1 1")).toEqual({ name: "log", id: "run_1", lines: 1 });
    expect(parseCommand(`log run_1 ${MAX_LOG_LINES}`)).toEqual({
      name: "log",
      id: "run_1",
      lines: MAX_LOG_LINES,
    });
    expect(invalidMessage(parseCommand(`log run_1 ${MAX_LOG_LINES + 1}`))).toContain(
      `received "${MAX_LOG_LINES + 1}"`,
    );
    expect(invalidMessage(parseCommand("log run_1 0"))).toContain("from 1 to");
    expect(invalidMessage(parseCommand("log run_1 2.5"))).toContain("from 1 to");
    expect(invalidMessage(parseCommand("log run_1 5 more"))).toContain("log expects");
  });

  it("watch takes an id and a regex, with or without slashes; a bad regex is named", () => {
    expect(parseCommand("watch run_1 ERROR|done")).toEqual({
      name: "watch",
      id: "run_1",
      regex: "ERROR|done",
    });
    expect(parseCommand("watch run_1 /ERROR|done/")).toEqual({
      name: "watch",
      id: "run_1",
      regex: "ERROR|done",
    });
    expect(parseCommand("watch run_1 took \\d+ ms")).toEqual({
      name: "watch",
      id: "run_1",
      regex: "took \\d+ ms",
    });
    expect(invalidMessage(parseCommand("watch run_1 (unclosed"))).toContain(
      "not a valid regular expression: (unclosed",
    );
    expect(invalidMessage(parseCommand("watch run_1"))).toContain("watch expects");
  });

  it("list, help and demo take no arguments", () => {
    expect(parseCommand("list")).toEqual({ name: "list" });
    expect(parseCommand("Help")).toEqual({ name: "help" });
    expect(parseCommand("demo")).toEqual({ name: "demo" });
    expect(invalidMessage(parseCommand("demo now"))).toBe("demo takes no arguments.");
  });

  it("an unknown command or an empty prompt is named", () => {
    expect(invalidMessage(parseCommand("make coffee"))).toBe("Unknown command: make.");
    expect(invalidMessage(parseCommand("   "))).toBe("The prompt is empty.");
  });
});
