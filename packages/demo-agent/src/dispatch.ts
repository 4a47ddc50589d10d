import { runTour } from "./demo/tour.js";
import type { Command } from "./parse.js";
import type { DemoSession } from "./session.js";
import { bgCommand } from "./commands/bg.js";
import { helpCommand } from "./commands/help.js";
import { keysCommand } from "./commands/keys.js";
import { killCommand } from "./commands/kill.js";
import { listCommand } from "./commands/list.js";
import { logCommand } from "./commands/log.js";
import { pollCommand } from "./commands/poll.js";
import { runCommand } from "./commands/run.js";
import { sendCommand } from "./commands/send.js";
import { watchCommand } from "./commands/watch.js";
import { messageOf } from "acp-terminal/internal";

/** Runs one parsed command. Errors (an unknown run id, ...) are told to the user, not thrown. */
export async function dispatch(session: DemoSession, command: Command): Promise<void> {
  try {
    switch (command.name) {
      case "run":
        await runCommand(session, command.command, command.timeoutSeconds, command.idleSeconds);
        return;
      case "bg":
        await bgCommand(session, command.command, { stdin: command.stdin, pty: command.pty });
        return;
      case "send":
        await sendCommand(session, command.id, command.text, command.eof);
        return;
      case "keys":
        await keysCommand(session, command.id, command.keys);
        return;
      case "poll":
        await pollCommand(session, command.id);
        return;
      case "log":
        await logCommand(session, command.id, command.lines);
        return;
      case "kill":
        await killCommand(session, command.id, command.signal);
        return;
      case "list":
        await listCommand(session);
        return;
      case "watch":
        await watchCommand(session, command.id, command.regex);
        return;
      case "demo":
        await runTour(session);
        return;
      case "help":
        return helpCommand(session);
      case "invalid":
        return helpCommand(session, `${command.message} The commands are:`);
    }
  } catch (error) {
    await session.say(`${command.name} failed: ${messageOf(error)}\n`);
  }
}
