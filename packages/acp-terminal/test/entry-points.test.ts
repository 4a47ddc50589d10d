/** The package's entry points: each subpath resolves to the names it promises, and the root loads no app-only code. */
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const PACKAGE = fileURLToPath(new URL("..", import.meta.url));

/** Every module `entry` loads, following its relative imports (static and re-exports) through dist/. */
function loadedModules(entry: string): string[] {
  const seen = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) {
      continue;
    }
    seen.add(file);
    for (const match of readFileSync(file, "utf8").matchAll(
      /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"/g,
    )) {
      pending.push(join(dirname(file), match[1]!));
    }
  }
  return [...seen].map((file) => relative(join(PACKAGE, "dist"), file)).sort();
}

describe("entry points", () => {
  it("the root does not load the internal entry point the apps borrow from", () => {
    const modules = loadedModules(join(PACKAGE, "dist", "index.js"));
    expect(modules).toContain("host/terminal-host.js");
    expect(modules).not.toContain("internal.js");
  });

  it("the library has no bin, no MCP package among any of its dependencies, and node-pty only as an optional peer", () => {
    const manifest: Record<string, Record<string, unknown> | undefined> = JSON.parse(
      readFileSync(join(PACKAGE, "package.json"), "utf8"),
    );
    expect(manifest["bin"]).toBeUndefined();
    const kinds = ["dependencies", "optionalDependencies", "peerDependencies", "devDependencies"];
    const all = kinds.flatMap((kind) => Object.keys(manifest[kind] ?? {}));
    expect(all.filter((name) => /mcp|modelcontextprotocol/.test(name))).toEqual([]);
    expect(Object.keys(manifest["dependencies"] ?? {})).not.toContain("node-pty");
    expect(manifest["peerDependenciesMeta"]).toEqual({ "node-pty": { optional: true } });
  });

  it("each subpath exports what it is for", async () => {
    const root = await import("acp-terminal");
    expect(Object.keys(root).sort()).toContain("TerminalHost");
    const protocol = await import("acp-terminal/protocol");
    expect(protocol.EXTENSION_METHODS).toEqual({
      write: "_acp-terminal/write",
      resize: "_acp-terminal/resize",
      signal: "_acp-terminal/signal",
    });
    expect((await import("acp-terminal/keys")).encodeKeys(["C-c"])).toBe("\u0003");
    expect(typeof (await import("acp-terminal/internal")).messageOf).toBe("function");
    const approval = await import("acp-terminal/approval");
    for (const name of [
      "createApprovalPolicy",
      "sameCommandKey",
      "approvalQuestion",
      "printable",
    ]) {
      expect(typeof approval[name as keyof typeof approval], name).toBe("function");
    }
    expect(approval.MAX_QUESTION_CHARS).toBe(8000);
    expect("messageOf" in root).toBe(false);
  });
});
