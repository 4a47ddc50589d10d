/** The whole command line, arguments quoted where needed (for tool results and messages). */
export function commandLine(command: { command: string; args?: readonly string[] | null }): string {
  return [command.command, ...(command.args ?? []).map(quoteArg)].join(" ");
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
