// The shell action API as its specification (shared/specs/001_05423ffd0b148d6a.txt) reads, over
// both providers. Each case says the behaviour it checks; see README "Tool surfaces" for the rules.
import { describe, expect, it } from "vitest";
import { type RunEvent } from "../src/index.js";
import { shellTool } from "../src/tools.js";
import {
  contractProviders,
  contractRigs,
  expectNoneLeft,
  within,
} from "./tool-contract-support.js";
import { until } from "./support.js";

const MARK = "contract_shell_mark";
/** A command line that carries the marker (so no process can outlive the file unseen). */
const marked = (command: string): string => `${command} # ${MARK}`;
expectNoneLeft(MARK);

const PROVIDERS = contractProviders();

interface Item {
  seq: number;
  kind: string;
  text?: string;
  event?: string;
  match?: string;
}
const textOf = (items: Item[]): string =>
  items
    .filter((i) => i.kind === "output")
    .map((i) => i.text)
    .join("");

describe.each(PROVIDERS)("shell contract over the %s provider", (_name, setup) => {
  const { use, call, refusal } = contractRigs(setup);

  async function finished(id: string): Promise<void> {
    await use().manager.wait(id);
  }

  describe("strict inputs", () => {
    it("refuses an unknown parameter with invalid_params, naming it, the nearest accepted name and the accepted names", async () => {
      const error = await refusal(shellTool, { command: marked("pwd"), working_directory: "/tmp" });
      expect(error.code).toBe("invalid_params");
      expect(error.message).toContain("`working_directory`");
      expect(error.message).toContain("did you mean `cwd`?");
      expect(error.message).toMatch(/accepted parameters: action, command, cwd, .*run_id/);
      // Nothing ran in the wrong directory.
      expect(use().manager.list()).toEqual([]);
    });

    it("refuses an unknown key inside a watcher", async () => {
      const error = await refusal(shellTool, {
        action: "spawn",
        command: marked("true"),
        watch: [{ regex: "x", evnt: "hit" }],
      });
      expect(error).toMatchObject({
        code: "invalid_params",
        message: expect.stringContaining("did you mean `event`?"),
      });
    });

    it("accepts run_id, the specification's name, wherever id is accepted", async () => {
      const spawned = await call(shellTool, { action: "spawn", command: marked("echo one") });
      await finished(spawned.id);
      const polled = await call(shellTool, { action: "poll", run_id: spawned.id });
      expect(textOf(polled.items)).toBe("one\n");
    });

    it("refuses id and run_id that name different runs", async () => {
      const error = await refusal(shellTool, { action: "poll", id: "run_a", run_id: "run_b" });
      expect(error).toMatchObject({
        code: "invalid_params",
        message: expect.stringContaining("`run_id` is an alias of `id`, and they differ"),
      });
    });

    it("accepts session_id only when it is the calling session", async () => {
      const error = await refusal(shellTool, {
        command: marked("true"),
        session_id: "someone-else",
      });
      expect(error).toMatchObject({
        code: "invalid_params",
        message: expect.stringContaining("Invalid session_id"),
      });
      expect((await call(shellTool, { command: marked("echo ok"), session_id: "s" })).output).toBe(
        "ok\n",
      );
    });

    it("publishes additionalProperties: false and states the cursor's meaning in the JSON Schema", () => {
      const schema = shellTool.jsonSchema as {
        additionalProperties: unknown;
        properties: Record<string, { description?: string }>;
      };
      expect(schema.additionalProperties).toBe(false);
      expect(schema.properties["since_seq"]?.description).toMatch(/strictly after/);
      expect(schema.properties["run_id"]?.description).toMatch(/Alias of `id`/);
    });
  });

  describe("cursors", () => {
    it("log returns only the items strictly after since_seq, up to limit, with next_seq to continue", async () => {
      const spawned = await call(shellTool, {
        action: "spawn",
        command: marked("printf 'a\\n'; sleep 0.05; printf 'b\\n'; sleep 0.05; printf 'c\\n'"),
      });
      await finished(spawned.id);
      const all = await call(shellTool, { action: "log", id: spawned.id });
      expect(textOf(all.items)).toBe("a\nb\nc\n");
      const first = all.items[0] as Item;
      expect(first.seq).toBe(1);
      const rest = await call(shellTool, { action: "log", id: spawned.id, since_seq: first.seq });
      expect(rest.items.map((i: Item) => i.seq)).toEqual(
        all.items.slice(1).map((i: Item) => i.seq),
      );
      const one = await call(shellTool, { action: "log", id: spawned.id, since_seq: 0, limit: 1 });
      expect(one.items).toHaveLength(1);
      expect(one.next_seq).toBe(one.items[0].seq);
    });

    it("gives the same next page whether the caller passes back next_seq or the last seq it saw", async () => {
      const spawned = await call(shellTool, {
        action: "spawn",
        command: marked("for i in 1 2 3 4 5 6; do echo line$i; sleep 0.02; done"),
      });
      await finished(spawned.id);
      const page = await call(shellTool, { action: "poll", id: spawned.id, limit: 2 });
      const lastSeen = (page.items as Item[]).at(-1)!.seq;
      expect(page.next_seq).toBe(lastSeen);
      const byNext = await call(shellTool, {
        action: "poll",
        id: spawned.id,
        since_seq: page.next_seq,
      });
      const byLast = await call(shellTool, { action: "poll", id: spawned.id, since_seq: lastSeen });
      expect(byNext.items).toEqual(byLast.items);
      // No item twice, none missed.
      expect(textOf([...page.items, ...byNext.items])).toBe(
        "line1\nline2\nline3\nline4\nline5\nline6\n",
      );
    });

    it("an empty page keeps next_seq where it was", async () => {
      const spawned = await call(shellTool, { action: "spawn", command: marked("echo only") });
      await finished(spawned.id);
      const page = await call(shellTool, { action: "poll", id: spawned.id });
      const again = await call(shellTool, {
        action: "poll",
        id: spawned.id,
        since_seq: page.next_seq,
      });
      expect(again).toMatchObject({ items: [], next_seq: page.next_seq, done: true });
    });
  });

  describe("spawn", () => {
    it("with background: false waits for the run to end and returns its output", async () => {
      const result = await call(shellTool, {
        action: "spawn",
        background: false,
        command: marked("sleep 0.2; echo finished"),
      });
      expect(result).toMatchObject({ status: "completed", exit_code: 0, output: "finished\n" });
    });

    it("with background omitted returns at once, the run still going", async () => {
      const result = await call(shellTool, { action: "spawn", command: marked("sleep 5") });
      expect(result).toMatchObject({ status: "running", next_seq: 0 });
      await call(shellTool, { action: "kill", id: result.id });
    });

    it("max_output_bytes caps what the run keeps, not only one answer, and says how much was cut", async () => {
      const spawned = await call(shellTool, {
        action: "spawn",
        max_output_bytes: 1000,
        command: marked("printf 'x%.0s' $(seq 5000)"),
      });
      await finished(spawned.id);
      const log = await call(shellTool, {
        action: "log",
        id: spawned.id,
        max_output_bytes: 1_000_000,
        limit: 500,
      });
      const kept = textOf(log.items);
      expect(Buffer.byteLength(kept)).toBe(1000);
      expect(log).toMatchObject({ truncated: true, capped_bytes: 4000 });
      expect(
        log.items.some(
          (i: Item) => i.kind === "notice" && /max_output_bytes \(1000 bytes\)/.test(i.text ?? ""),
        ),
      ).toBe(true);
    });
  });

  describe("send_keys", () => {
    it("Enter on a pipe run ends the line, so a command waiting in read gets it", async () => {
      const spawned = await call(shellTool, {
        action: "spawn",
        timeout_secs: 20,
        command: marked('read name; echo "hello $name"'),
      });
      await call(shellTool, { action: "send_keys", id: spawned.id, keys: ["world", "Enter"] });
      // A carriage return alone would leave read waiting until the 20 s timeout.
      const run = await within(
        use().manager.wait(spawned.id),
        10_000,
        "the end of read after Enter",
      );
      expect(run.status).toBe("completed");
      const log = await call(shellTool, { action: "log", id: spawned.id });
      expect(textOf(log.items)).toBe("hello world\n");
    });

    it("Enter in a PTY run is a carriage return, as a terminal sends it", async () => {
      // In raw mode the program sees the byte itself.
      const script =
        "process.stdin.setRawMode(true);process.stdout.write('ready\\n');process.stdin.once('data',(d)=>{console.log('got',JSON.stringify(d.toString()));process.exit(0)})";
      const spawned = await call(shellTool, {
        action: "spawn",
        pty: true,
        timeout_secs: 20,
        command: marked(`${process.execPath} -e "${script}"`),
      });
      await until(
        async () =>
          (await call(shellTool, { action: "poll", id: spawned.id })).snippet.includes("ready"),
        "ready",
      );
      await call(shellTool, { action: "send_keys", id: spawned.id, keys: ["Enter"] });
      await finished(spawned.id);
      expect((await call(shellTool, { action: "poll", id: spawned.id })).snippet).toContain(
        'got "\\r"',
      );
    });
  });

  describe("watchers", () => {
    it("saves each watcher hit as an event item in the run's items, after the output that matched", async () => {
      const spawned = await call(shellTool, {
        action: "spawn",
        command: marked("echo building; echo 'error: bad thing'; echo done"),
        watch: [{ regex: "^error:", event: "error" }],
      });
      await finished(spawned.id);
      const log = await call(shellTool, { action: "log", id: spawned.id });
      const events = (log.items as Item[]).filter((i) => i.kind === "event");
      expect(events).toEqual([
        { seq: expect.any(Number), kind: "event", event: "error", match: "error:" },
      ]);
      const matched = (log.items as Item[]).find(
        (i) => i.kind === "output" && i.text!.includes("error: bad thing"),
      )!;
      expect(events[0]!.seq).toBeGreaterThan(matched.seq);
      // The same item through the manager's store: it is persisted, not only reported.
      expect(
        (await use().manager.read(spawned.id)).items.filter((i) => i.kind === "event"),
      ).toHaveLength(1);
    });

    it("a watcher hit's event callback carries a bounded snippet of the recent output", async () => {
      const events: RunEvent[] = [];
      const unsubscribe = use().manager.subscribe((event) => events.push(event));
      const spawned = await call(shellTool, {
        action: "spawn",
        command: marked("echo step one; echo 'FATAL: disk full'"),
        watch: [{ regex: "FATAL", event: "fatal" }],
      });
      await finished(spawned.id);
      unsubscribe();
      const hit = events.find((e) => e.type === "watch");
      expect(hit).toMatchObject({
        type: "watch",
        event: "fatal",
        snippet: expect.stringContaining("FATAL: disk full"),
      });
      expect(hit?.type === "watch" && hit.snippet.length).toBeLessThanOrEqual(400);
    });
  });

  describe("wait", () => {
    it("with until output, blocks until new output arrives, then answers with the items and what woke it", async () => {
      const spawned = await call(shellTool, {
        action: "spawn",
        timeout_secs: 20,
        command: marked('read x; echo "got $x"; sleep 10'),
      });
      const waiting = call(shellTool, {
        action: "wait",
        id: spawned.id,
        since_seq: 0,
        until: "output",
        wait_secs: 15,
      });
      await call(shellTool, { action: "send_keys", id: spawned.id, keys: ["hi", "Enter"] });
      const woke = await waiting;
      expect(woke).toMatchObject({ woke: "output", status: "running" });
      expect(textOf(woke.items)).toContain("got hi");
      expect(woke.next_seq).toBeGreaterThan(0);
      await call(shellTool, { action: "kill", id: spawned.id });
    });

    it("wakes on a watcher match and on the exit", async () => {
      const spawned = await call(shellTool, {
        action: "spawn",
        command: marked("sleep 0.2; echo READY; sleep 0.2"),
        watch: [{ regex: "READY", event: "ready" }],
      });
      const first = await call(shellTool, {
        action: "wait",
        id: spawned.id,
        since_seq: 0,
        wait_secs: 15,
      });
      expect(["output", "watch"]).toContain(first.woke);
      let cursor = first.next_seq as number;
      let last = first;
      // Keep waiting from each answer's next_seq until the run has ended.
      while (last.woke !== "exit" && !last.done) {
        last = await call(shellTool, {
          action: "wait",
          id: spawned.id,
          since_seq: cursor,
          wait_secs: 15,
        });
        cursor = last.next_seq;
      }
      const log = await call(shellTool, { action: "log", id: spawned.id });
      expect((log.items as Item[]).some((i) => i.kind === "event" && i.event === "ready")).toBe(
        true,
      );
      expect(use().manager.get(spawned.id).status).toBe("completed");
    });

    it("returns after wait_secs with no new items when nothing happens", async () => {
      const spawned = await call(shellTool, { action: "spawn", command: marked("sleep 10") });
      const started = Date.now();
      const result = await call(shellTool, {
        action: "wait",
        id: spawned.id,
        since_seq: 0,
        wait_secs: 0.3,
      });
      expect(result).toMatchObject({ woke: "timeout", items: [], next_seq: 0, status: "running" });
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      await call(shellTool, { action: "kill", id: spawned.id });
    });

    it("refuses a since_seq past the end at once instead of waiting", async () => {
      const spawned = await call(shellTool, { action: "spawn", command: marked("sleep 10") });
      const started = Date.now();
      const error = await refusal(shellTool, {
        action: "wait",
        id: spawned.id,
        since_seq: 99,
        wait_secs: 30,
      });
      expect(error).toMatchObject({
        code: "invalid_params",
        message: expect.stringContaining("Invalid since_seq"),
      });
      expect(Date.now() - started).toBeLessThan(5000);
      await call(shellTool, { action: "kill", id: spawned.id });
    });

    it("refuses wait_secs beyond 300", async () => {
      expect(
        await refusal(shellTool, { action: "wait", id: "run_x", wait_secs: 301 }),
      ).toMatchObject({ code: "invalid_params", message: expect.stringContaining("wait_secs") });
    });
  });
});
