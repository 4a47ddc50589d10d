import { runTour } from "../demo/tour.js";
import type { Command } from "../parse.js";
import type { DemoSession } from "../session.js";
import { bgCommand } from "./bg.js";
import { helpCommand } from "./help.js";
import { keysCommand } from "./keys.js";
import { killCommand } from "./kill.js";
import { listCommand } from "./list.js";
import { logCommand } from "./log.js";
import { pollCommand } from "./poll.js";
import { runCommand } from "./run.js";
import { sendCommand } from "./send.js";
import { watchCommand } from "./watch.js";
import { messageOf } from "../thrown.js";

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
