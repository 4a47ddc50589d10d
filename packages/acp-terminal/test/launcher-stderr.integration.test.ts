import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { Launcher } from "../src/contain/launcher.js";
import { launcherSupport } from "../src/contain/launcher-support.js";

const tools = launcherSupport();
const dir = mkdtempSync(join(tmpdir(), "launcher-stderr-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A `perl` that runs the launcher with a module it lacks: as a stripped perl would fail. */
function brokenPerl(): string {
  const path = join(dir, "perl");
  writeFileSync(path, `#!/bin/sh\nexec ${tools!.perl} -MNo::Such::Launcher::Module "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

it.skipIf(!tools)(
  "a start whose launcher dies in Perl fails with Perl's own error line",
  async () => {
    const launcher = Launcher.start({ ...tools!, perl: brokenPerl() });
    const request = { file: "true", args: ["true"], cwd: dir, env: {}, stdin: false };
    const failure = await launcher.launch(request).then(
      () => undefined,
      (error: unknown) => error as Error & { code: string },
    );
    expect(failure?.code).toBe("ECHILD");
    expect(failure?.message).toMatch(
      /the launcher exited; perl said: Can't locate No\/Such\/Launcher\/Module\.pm/,
    );
    // Bounded: a few lines of what it said, not all of @INC's listing.
    expect(failure!.message.length).toBeLessThan(2_200);
    const again = await launcher.launch(request).catch((error: Error) => error);
    expect((again as Error).message).toMatch(/not running; perl said: Can't locate/);
  },
);
