import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * Files a job waits for, created by the tour when it is ready for the job to go on: a command can
 * pause at a known point (`[ -e "$GATE2" ]`) however slow the agent is. The files live on the
 * agent's machine; a job waiting for one bounds its own wait, so a client elsewhere only slows it.
 */
export class FileGate {
  private constructor(readonly prefix: string) {}

  static async create(): Promise<FileGate> {
    return new FileGate(path.join(await mkdtemp(path.join(tmpdir(), "demo-agent-gate-")), "open"));
  }

  /** Lets a job waiting for `${prefix}${name}` go on. */
  async open(name: string): Promise<void> {
    await writeFile(`${this.prefix}${name}`, "");
  }

  async dispose(): Promise<void> {
    await rm(path.dirname(this.prefix), { recursive: true, force: true });
  }
}
