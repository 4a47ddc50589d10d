import { describe, expect, it } from "vitest";
import { OutputWatcher } from "../src/readers/output-watcher.js";
import { OutputBuffer } from "acp-terminal/internal";
import { until } from "../../../test/support/until.js";

const bytes = (text: string) => new Uint8Array(Buffer.from(text, "utf8"));

describe("OutputWatcher", () => {
  it("reports a terminal once per look however many chunks came, and nothing when none came", async () => {
    const seen: string[] = [];
    const watcher = new OutputWatcher((id) => seen.push(id), 10);
    const buffer = new OutputBuffer(1024);
    watcher.follow("t1", buffer);
    for (let i = 0; i < 100; i++) {
      buffer.append(bytes("x"));
    }
    watcher.check("t1");
    expect(seen).toEqual(["t1"]);
    watcher.check("t1");
    expect(seen).toEqual(["t1"]);
    buffer.append(bytes("y"));
    await until(() => seen.length === 2, { message: "the next look, on the timer" });
    expect(seen).toEqual(["t1", "t1"]);
    watcher.forget("t1");
    buffer.append(bytes("z"));
    watcher.check("t1");
    expect(seen).toEqual(["t1", "t1"]);
  });
});
