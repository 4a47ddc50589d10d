/** PTY output through TerminalHost is what a terminal emulator shows, from real commands in real PTYs. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeHost, outputMatching, owner, processGone } from "./host-helpers.js";

const dir = mkdtempSync(join(tmpdir(), "acp-terminal-screen-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("PTY output rendered by the emulator", () => {
  it("a line redrawn with ESC[1A ESC[2K shows once, as redrawn", async () => {
    const host = makeHost();
    const command =
      "printf 'step 1/3\\n'; printf '\\033[1A\\033[2Kstep 2/3\\n'; printf '\\033[1A\\033[2Kstep 3/3\\n'; printf 'done\\n'";
    const id = await host.create(owner, { command, pty: true });
    await host.waitForExit(owner, id);
    expect(host.output(owner, id).output).toBe("step 3/3\ndone\n");
  });

  it("less shows its page while it runs and leaves only the shell's lines once it quits (alternate screen)", async () => {
    const file = join(dir, "pages.txt");
    writeFileSync(file, Array.from({ length: 200 }, (_, i) => `line ${i + 1}\n`).join(""));
    const host = makeHost();
    const id = await host.create(owner, {
      command: `echo before less; less ${file}; echo after less`,
      pty: true,
    });
    await outputMatching(host, id, /line 23\n/);
    expect(host.output(owner, id).output).toMatch(/^before less\nline 1\nline 2\n/);
    await host.write(owner, id, "q");
    expect(await host.waitForExit(owner, id)).toEqual({ exitCode: 0, signal: null });
    expect(host.output(owner, id).output).toBe("before less\nafter less\n");
    expect(await processGone(host.info(id)?.pid ?? 0)).toBe(true);
  });

  it("renders at the terminal's size, and at the new size after resize", async () => {
    const host = makeHost();
    // Each printf waits for a line typed, so nothing is read after the exit (node-pty may drop that).
    const command =
      "stty -echo; printf '\\033[999C|\\n'; read line; printf '\\033[999C|\\n'; read line";
    const id = await host.create(owner, { command, pty: { cols: 20, rows: 5 } });
    await outputMatching(host, id, /\|\n/);
    host.resize(owner, id, 30, 5);
    await host.write(owner, id, "\r");
    await outputMatching(host, id, /\|\n.*\|\n/s);
    expect(host.output(owner, id).output).toBe(`${" ".repeat(19)}|\n${" ".repeat(29)}|\n`);
    await host.write(owner, id, "\r");
    expect(await host.waitForExit(owner, id)).toEqual({ exitCode: 0, signal: null });
  });

  it("outputByteLimit N: N-1 and N raw bytes are whole, N+1 keeps the newest N and is truncated", async () => {
    const host = makeHost();
    const sizes = [9, 10, 11];
    const ids = await Promise.all(
      sizes.map((size) =>
        host.create(owner, {
          command: "printf",
          args: ["abcdefghijk".slice(0, size)],
          pty: true,
          outputByteLimit: 10,
        }),
      ),
    );
    await Promise.all(ids.map((id) => host.waitForExit(owner, id)));
    expect(ids.map((id) => host.output(owner, id))).toMatchObject([
      { output: "abcdefghi", truncated: false, totalBytes: 9, droppedBytes: 0 },
      { output: "abcdefghij", truncated: false, totalBytes: 10, droppedBytes: 0 },
      { output: "bcdefghijk", truncated: true, totalBytes: 11, droppedBytes: 1 },
    ]);
  });

  it("a read while the command runs shows the screen so far; the next read parses only what came since", async () => {
    const host = makeHost();
    const id = await host.create(owner, {
      command: "stty -echo; printf '10%%'; read x; printf '\\r100%%\\n'",
      pty: true,
    });
    await outputMatching(host, id, /^10%$/);
    const before = host.output(owner, id).totalBytes;
    await host.write(owner, id, "\r");
    await host.waitForExit(owner, id);
    const after = host.output(owner, id);
    expect(after.output).toBe("100%\n");
    expect(after.totalBytes).toBeGreaterThan(before);
  });
});
