import { describe, expect, it } from "vitest";
import { z } from "zod";
import { nearestName, strictInput } from "../src/tools/core/strict-input.js";

const schema = strictInput(
  {
    command: z.string().min(1),
    cwd: z.string().optional(),
    id: z.string().min(1),
    limit: z.number().int().max(10).optional(),
  },
  { aliases: { working_directory: "cwd", run_id: "id" } },
);

function messageOf(input: unknown): string {
  const parsed = schema.safeParse(input);
  if (parsed.success) {
    throw new Error(`expected a refusal of ${JSON.stringify(input)}`);
  }
  return parsed.error.issues.map((issue) => issue.message).join("; ");
}

describe("strictInput", () => {
  it("refuses an unknown parameter, naming it, suggesting the nearest name and listing the accepted ones", () => {
    const message = messageOf({ command: "ls", id: "r1", limt: 3 });
    expect(message).toContain("`limt`");
    expect(message).toContain("did you mean `limit`?");
    expect(message).toContain(
      "accepted parameters: command, cwd, id, limit, working_directory, run_id",
    );
  });

  it("suggests a synonym when the unknown name is another tool's word for an accepted one", () => {
    expect(messageOf({ command: "ls", id: "r1", workdir: "/tmp" })).toContain(
      "did you mean `cwd`?",
    );
    expect(nearestName("environment", ["command", "env"])).toBe("env");
    expect(nearestName("sessionId", ["id", "limit"])).toBe("id");
  });

  it("suggests nothing when no accepted name is close", () => {
    expect(messageOf({ command: "ls", id: "r1", zebra: 1 })).not.toContain("did you mean");
  });

  it("names every unknown parameter of one call", () => {
    const message = messageOf({ command: "ls", id: "r1", foo: 1, bar: 2 });
    expect(message).toContain("`foo`");
    expect(message).toContain("`bar`");
  });

  it("accepts the specification's name as an alias and hands the handler only the primary name", () => {
    expect(schema.parse({ command: "ls", run_id: "r1", working_directory: "/tmp" })).toEqual({
      command: "ls",
      id: "r1",
      cwd: "/tmp",
    });
  });

  it("accepts the primary name and its alias together when they agree, and refuses them when they differ", () => {
    expect(schema.parse({ command: "ls", id: "r1", run_id: "r1" })).toEqual({
      command: "ls",
      id: "r1",
    });
    expect(messageOf({ command: "ls", id: "r1", run_id: "r2" })).toContain(
      "`run_id` is an alias of `id`, and they differ",
    );
  });

  it("still requires an aliased required parameter under one of its names", () => {
    expect(messageOf({ command: "ls" })).toContain("required: give `id` or `run_id`");
  });

  it("validates an alias with the primary parameter's rules", () => {
    expect(schema.safeParse({ command: "ls", run_id: "" }).success).toBe(false);
  });

  it("says additionalProperties: false in its JSON Schema and lists aliases as such", () => {
    const json = z.toJSONSchema(schema, { io: "input" }) as {
      additionalProperties: unknown;
      properties: Record<string, { description?: string }>;
    };
    expect(json.additionalProperties).toBe(false);
    expect(json.properties["run_id"]?.description).toMatch(/Alias of `id`/);
  });

  it("without aliases is a plain strict object", () => {
    const plain = strictInput({ a: z.string().optional() });
    expect(plain.safeParse({ a: "x" }).success).toBe(true);
    expect(plain.safeParse({ b: "x" }).success).toBe(false);
    expect(
      (z.toJSONSchema(plain, { io: "input" }) as { additionalProperties: unknown })
        .additionalProperties,
    ).toBe(false);
  });
});
