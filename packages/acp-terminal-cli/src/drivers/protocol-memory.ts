import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

/** The file is read whole: a bigger one is ignored (and replaced at the next remembered answer). */
const MAX_FILE_BYTES = 256 * 1024;
/** Agent commands remembered at most; the oldest are forgotten first. */
const MAX_AGENTS = 256;

/** What is remembered of one agent command. */
interface Remembered {
  protocol: "v1";
  /** Why, in words. */
  reason: string;
  /** When it was learned (ISO 8601). */
  at: string;
}

/**
 * The protocol each agent command (its command line, as given) turned out to speak under `auto`,
 * when that was not what `auto` offers first: an agent that answers the ACP v2 offer in v1's
 * format is started again with v1, and from then on gets v1 at once. Kept in
 * `$XDG_CACHE_HOME/acp-terminal/protocols.json` (else `~/.cache/…`); delete an entry (or the file)
 * to offer v2 again. A file that cannot be read or written is no error: the offer is made again.
 */
export class ProtocolMemory {
  constructor(readonly file: string) {}

  /** The memory of the user whose environment `env` is. */
  static of(env: NodeJS.ProcessEnv): ProtocolMemory {
    const base = env["XDG_CACHE_HOME"] || path.join(env["HOME"] || homedir(), ".cache");
    return new ProtocolMemory(path.join(base, "acp-terminal", "protocols.json"));
  }

  /** The protocol remembered for `agent`, if any. */
  recall(agent: string): Remembered | undefined {
    const entry = this.#read()[agent];
    return entry?.protocol === "v1" ? entry : undefined;
  }

  /** Remembers that `agent` speaks v1; false when the file could not be written. */
  remember(agent: string, reason: string): boolean {
    const agents = this.#read();
    delete agents[agent];
    agents[agent] = { protocol: "v1", reason, at: new Date().toISOString() };
    const kept = Object.entries(agents).slice(-MAX_AGENTS);
    try {
      mkdirSync(path.dirname(this.file), { recursive: true });
      const temporary = `${this.file}.${process.pid}.tmp`;
      writeFileSync(
        temporary,
        `${JSON.stringify({ agents: Object.fromEntries(kept) }, null, 2)}\n`,
      );
      renameSync(temporary, this.file);
      return true;
    } catch {
      return false; // a read-only home or a full disk: the offer is simply made again next time
    }
  }

  #read(): Record<string, Remembered> {
    try {
      const bytes = readFileSync(this.file);
      if (bytes.byteLength > MAX_FILE_BYTES) {
        return {};
      }
      const parsed: unknown = JSON.parse(bytes.toString("utf8"));
      const agents: unknown = Reflect.get(Object(parsed), "agents");
      if (typeof agents !== "object" || agents === null || Array.isArray(agents)) {
        return {};
      }
      const remembered: Record<string, Remembered> = {};
      for (const [agent, entry] of Object.entries(agents)) {
        if (
          typeof entry === "object" &&
          entry !== null &&
          Reflect.get(entry, "protocol") === "v1"
        ) {
          const reason: unknown = Reflect.get(entry, "reason");
          const at: unknown = Reflect.get(entry, "at");
          remembered[agent] = {
            protocol: "v1",
            reason: typeof reason === "string" ? reason : "",
            at: typeof at === "string" ? at : "",
          };
        }
      }
      return remembered;
    } catch {
      return {}; // none yet, or not ours to read: nothing remembered
    }
  }
}
