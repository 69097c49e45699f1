/**
 * localCommand, the one source of it (Claude Code's record of a local command): the HTML and Markdown export and codex's writer call it, and the web viewer's
 * asset `local-command.js` is this function's own code (functionModule in src/server/web/index.ts), as readable-json.js is.
 * It must stay self-contained: no imports and nothing from outside its body.
 */

/** A command the user ran in Claude Code itself (`/compact`), or what it printed, as Claude Code's screen shows it. */
export interface LocalCommand {
  kind: 'command' | 'stdout' | 'stderr';
  /** the command with its arguments, or the output */
  text: string;
}

/**
 * A user turn's text that is Claude Code's record of a local command (`<command-name>/compact
 * </command-name><command-message>…<command-args>…`) or of its output (`<local-command-stdout>`):
 * the command line or the output, without the tags; undefined for any other text.
 */
export function localCommand(text: string): LocalCommand | undefined {
  const cmd = text.match(
    /^\s*<command-name>([^<]*)<\/command-name>\s*(?:<command-message>[^<]*<\/command-message>\s*)?(?:<command-args>([\s\S]*?)<\/command-args>\s*)?$/,
  );
  if (cmd) {
    const args = (cmd[2] ?? '').trim();
    return { kind: 'command', text: `${cmd[1]}${args ? ` ${args}` : ''}` };
  }
  const out = text.match(/^\s*<local-command-(stdout|stderr)>([\s\S]*)<\/local-command-\1>\s*$/);
  if (out) return { kind: out[1] === 'stderr' ? 'stderr' : 'stdout', text: out[2] ?? '' };
  return undefined;
}
