/**
 * One quoting for the shell commands threadbase prints (resume commands): POSIX single quotes, in
 * which every character is literal, so a path with a space, `$`, a backtick, `!` or a newline comes
 * back as it is; a single quote itself is closed, escaped and reopened ('\''). Words of only safe
 * characters are left bare, so the usual command reads as one would type it.
 */
export function shellQuote(word: string): string {
  // no `=` among them: a bare `a=b` first in a command would be an assignment
  if (/^[A-Za-z0-9_./:@%+,-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * A resume command as one would type it: into the session's project first (agents run their tools
 * and find their sessions there), then the agent's own home variables that are set, then `command`
 * (its words already quoted).
 */
export function resumeCommandLine(
  project: string | undefined,
  vars: Readonly<Record<string, string | undefined>>,
  command: string,
): string {
  const cd = project ? `cd ${shellQuote(project)} && ` : '';
  const assigned = Object.entries(vars)
    .flatMap(([name, value]) => (value?.trim() ? [`${name}=${shellQuote(value)} `] : []))
    .join('');
  return `${cd}${assigned}${command}`;
}
