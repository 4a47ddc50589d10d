// Scripts for the stand-in models beyond the demo: a prompt holding `[script:NAME]` makes the
// stand-in follow NAME's steps, one per answer, chosen by how many tool results the conversation
// holds. They drive what a person does every day through acp-terminal (record-cli.mjs): run
// commands the client approves or refuses, read and edit a file and create one, say hello.

/** The script a prompt asks for, or undefined. @param {string[]} texts */
export function scriptOf(texts) {
  for (const text of texts) {
    const match = /\[script:([a-z-]+)\]/.exec(text);
    if (match) {
      return match[1];
    }
  }
  return undefined;
}

/** Commands the `commands` script runs, in order: the client approves or refuses each. */
export const SCRIPT_COMMANDS = ["touch ran2.txt", "rm -rf build"];
/** The file the `edit` script reads and edits, with its text before, and the one it creates. */
export const EDITED_FILE = "notes.txt";
export const EDITED_BEFORE = "alpha\nbeta\ngamma\n";
export const CREATED_FILE = "todo.txt";
export const CREATED_TEXT = "- ship it\n- test it\n";

/**
 * Claude's next content blocks (Anthropic tool_use / text) for `script`, or null when done.
 * @param {string} script
 * @param {number} results tool results so far
 * @param {string} cwd the session's directory, as Claude Code's system prompt gives it
 * @returns {Array<Record<string, any>>}
 */
export function claudeScript(script, results, cwd) {
  const tool = (/** @type {string} */ name, /** @type {Record<string, unknown>} */ input) => ({
    type: "tool_use",
    id: `toolu_standin_${script}_${results}`,
    name,
    input,
  });
  const file = (/** @type {string} */ name) => `${cwd}/${name}`;
  const steps = {
    hello: [],
    commands: SCRIPT_COMMANDS.map((command) =>
      tool("Bash", { command, description: `Run ${command}` }),
    ),
    edit: [
      tool("Read", { file_path: file(EDITED_FILE) }),
      tool("Edit", { file_path: file(EDITED_FILE), old_string: "beta", new_string: "BETA" }),
      tool("Write", { file_path: file(CREATED_FILE), content: CREATED_TEXT }),
    ],
  }[script];
  if (steps === undefined || results >= steps.length) {
    return [{ type: "text", text: script === "hello" ? "Hello." : `Done: ${script}.` }];
  }
  return [steps[results]];
}

/**
 * Codex's next output item (Responses API) for `script`.
 * @param {string} script
 * @param {number} outputs tool outputs so far
 * @param {number} count responses so far (for call ids)
 * @returns {{ type: "function_call", name: string, arguments: string, callId: string }
 *   | { type: "message", text: string }}
 */
export function codexScript(script, outputs, count) {
  const callId = `call_standin_${count}`;
  const exec = (/** @type {string} */ cmd) => ({
    type: /** @type {const} */ ("function_call"),
    name: "exec_command",
    // Escalated: codex asks the client before it runs the command outside its sandbox.
    arguments: JSON.stringify({
      cmd,
      yield_time_ms: 10000,
      sandbox_permissions: "require_escalated",
      justification: `The user asked to run ${cmd}`,
    }),
    callId,
  });
  // No apply_patch tool is offered to a model codex has no metadata for: the patch goes through
  // exec_command, which codex recognises as a patch (and asks for it as a file change).
  const patchText = [
    "*** Begin Patch",
    `*** Update File: ${EDITED_FILE}`,
    "@@",
    " alpha",
    "-beta",
    "+BETA",
    " gamma",
    `*** Add File: ${CREATED_FILE}`,
    ...CREATED_TEXT.trimEnd()
      .split("\n")
      .map((line) => `+${line}`),
    "*** End Patch",
  ].join("\n");
  const patch = {
    type: /** @type {const} */ ("function_call"),
    name: "exec_command",
    arguments: JSON.stringify({
      cmd: `apply_patch <<'EOF'\n${patchText}\nEOF\n`,
      yield_time_ms: 10000,
    }),
    callId,
  };
  const steps = {
    hello: [],
    commands: SCRIPT_COMMANDS.map(exec),
    edit: [patch],
  }[script];
  if (steps === undefined || outputs >= steps.length) {
    return { type: "message", text: script === "hello" ? "Hello." : `Done: ${script}.` };
  }
  return steps[outputs];
}

/**
 * Gemini's next parts (functionCall / text) for `script`: Gemini CLI's tools read_file, replace,
 * write_file and run_shell_command.
 * @param {string} script
 * @param {number} responses function responses so far
 * @param {string} cwd the project's directory, as Gemini CLI's prompt gives it
 * @returns {Array<Record<string, any>>}
 */
export function geminiScript(script, responses, cwd) {
  const call = (/** @type {string} */ name, /** @type {Record<string, unknown>} */ args) => ({
    functionCall: { name, args },
  });
  const file = (/** @type {string} */ name) => `${cwd}/${name}`;
  const steps = {
    hello: [],
    commands: SCRIPT_COMMANDS.map((command) => call("run_shell_command", { command })),
    edit: [
      call("read_file", { absolute_path: file(EDITED_FILE), file_path: file(EDITED_FILE) }),
      call("replace", {
        file_path: file(EDITED_FILE),
        old_string: "beta",
        new_string: "BETA",
        instruction: "Capitalise beta",
      }),
      call("write_file", { file_path: file(CREATED_FILE), content: CREATED_TEXT }),
    ],
  }[script];
  if (steps === undefined || responses >= steps.length) {
    return [{ text: script === "hello" ? "Hello." : `Done: ${script}.` }];
  }
  return [steps[responses]];
}
