import { describe, expect, it } from "vitest";
import { processListTool, runTool } from "../src/tools.js";
import { useLocalRigs } from "./support.js";

const localRig = useLocalRigs();

describe("errors say what to do", () => {
  it("list refuses a limit below 1 instead of returning one run", async () => {
    const rig = localRig();
    await rig.manager.run({ sessionId: "s", command: "true" });
    expect(() => rig.manager.list({ limit: 0 })).toThrow(
      /Invalid limit: expected a whole number of runs from 1 .*received 0/,
    );
    expect(() => rig.manager.list({ limit: -3 })).toThrow(/received -3/);
    expect(rig.manager.list({ limit: 1_000 })).toHaveLength(1);
  });

  it("not_running and disposed name the next step", async () => {
    const rig = localRig();
    const { run } = await rig.manager.run({ sessionId: "s", command: "true", stdin: true });
    await expect(rig.manager.write(run.id, "x")).rejects.toThrow(
      /is completed, not running: read its output with read\/lines, or start it again/,
    );
    await rig.manager.dispose();
    await expect(rig.manager.start({ sessionId: "s", command: "true" })).rejects.toThrow(
      /create a new ProcessManager/,
    );
  });

  it("tool results show the whole command line with arguments quoted", async () => {
    const rig = localRig();
    await rig.manager.run({ sessionId: "s", command: "echo", args: ["a b", "c"] });
    const listed = await runTool(processListTool, { manager: rig.manager, sessionId: "s" }, {});
    expect(listed).toMatchObject({
      ok: true,
      result: { processes: [{ command: "echo 'a b' c" }] },
    });
  });
});
