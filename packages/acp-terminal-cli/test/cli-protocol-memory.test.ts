/** What `auto` remembers of agent commands: a file that may be missing, broken, huge or read-only. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { answeredInV1Format } from "../src/drivers/pick-driver.js";
import { ProtocolMemory } from "../src/drivers/protocol-memory.js";

const dir = mkdtempSync(path.join(tmpdir(), "acp-terminal-memory-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const fresh = () => new ProtocolMemory(path.join(dir, String(files++), "protocols.json"));

describe("ProtocolMemory", () => {
  it("lives under $XDG_CACHE_HOME, else ~/.cache", () => {
    expect(ProtocolMemory.of({ XDG_CACHE_HOME: "/x", HOME: "/h" }).file).toBe(
      "/x/acp-terminal/protocols.json",
    );
    expect(ProtocolMemory.of({ HOME: "/h" }).file).toBe("/h/.cache/acp-terminal/protocols.json");
  });

  it("remembers per command line, and nothing for another", () => {
    const memory = fresh();
    expect(memory.recall("droid exec --output-format acp")).toBeUndefined();
    expect(memory.remember("droid exec --output-format acp", "why")).toBe(true);
    expect(memory.recall("droid exec --output-format acp")).toMatchObject({
      protocol: "v1",
      reason: "why",
    });
    expect(memory.recall("droid exec")).toBeUndefined();
  });

  it("takes a broken, foreign or oversized file for no memory, and replaces it when it learns", () => {
    for (const content of [
      "not json",
      "[1,2]",
      '{"agents": []}',
      '{"agents": {"a": {"protocol": "v9"}}}',
      `{"agents": {"a": {"protocol": "v1"}}, "pad": "${"x".repeat(300 * 1024)}"}`,
    ]) {
      const memory = fresh();
      mkdirSync(path.dirname(memory.file), { recursive: true });
      writeFileSync(memory.file, content);
      expect(memory.recall("a")).toBeUndefined();
      expect(memory.remember("b", "why")).toBe(true);
      expect(memory.recall("b")).toMatchObject({ protocol: "v1" });
    }
  });

  it("keeps the newest 256 agent commands", () => {
    const memory = fresh();
    for (let i = 0; i < 300; i++) {
      memory.remember(`agent ${i}`, "why");
    }
    const { agents } = JSON.parse(readFileSync(memory.file, "utf8")) as { agents: object };
    expect(Object.keys(agents)).toHaveLength(256);
    expect(memory.recall("agent 43")).toBeUndefined();
    expect(memory.recall("agent 299")).toBeDefined();
  });

  it("says so, without throwing, when it cannot write (a file where its directory should be)", () => {
    const blocker = path.join(dir, "blocker");
    writeFileSync(blocker, "");
    const memory = new ProtocolMemory(path.join(blocker, "acp-terminal", "protocols.json"));
    expect(memory.remember("a", "why")).toBe(false);
    expect(memory.recall("a")).toBeUndefined();
  });
});

describe("answeredInV1Format", () => {
  it("is an answer with v1's fields and none of v2's", () => {
    expect(answeredInV1Format({ protocolVersion: 2, agentCapabilities: {}, agentInfo: {} })).toBe(
      true,
    );
    expect(answeredInV1Format({ protocolVersion: 2, info: {}, capabilities: {} })).toBe(false);
    expect(answeredInV1Format({ protocolVersion: 2, info: {}, agentCapabilities: {} })).toBe(false);
    expect(answeredInV1Format({ protocolVersion: 2 })).toBe(false);
    expect(answeredInV1Format(null)).toBe(false);
  });
});
