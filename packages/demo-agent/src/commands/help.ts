import { COMMAND_HELP } from "../parse.js";
import type { DemoSession } from "../session.js";

/** `help`, and the answer to anything that is not a command. */
export async function helpCommand(session: DemoSession, preface?: string): Promise<void> {
  const intro = preface ?? "demo-agent runs commands through acp-process. Commands:";
  await session.say(`${intro}\n${COMMAND_HELP}\n`);
}
