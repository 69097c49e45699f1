/**
 * Which modules a command line needs, loaded when it is run: each command's file (with what it
 * imports: the index, the converters, the exporters) and the agents' formats only for the command
 * named, none of them for a bare `--version`. Loading every command and format took most of each
 * start-up (`--version` ≈ 0.5 s).
 */
import type { Command } from 'commander';
import type { CliContext } from './io.js';

type Register = (program: Command, ctx: CliContext) => void;

/** A command file, the commands it registers (test/cli/startup-lazy.test.ts checks them), and its loader. */
export interface CommandModule {
  readonly names: readonly string[];
  readonly load: () => Promise<Register>;
}

export const COMMAND_MODULES: readonly CommandModule[] = [
  { names: ['sessions'], load: async () => (await import('./commands/sessions.js')).registerSessions },
  { names: ['show', 'context'], load: async () => (await import('./commands/show.js')).registerShow },
  { names: ['convert', 'handoff', 'fork'], load: async () => (await import('./commands/convert.js')).registerConvert },
  { names: ['branch'], load: async () => (await import('./commands/branch.js')).registerBranch },
  { names: ['ui'], load: async () => (await import('./commands/ui.js')).registerUi },
  { names: ['serve'], load: async () => (await import('./commands/serve.js')).registerServe },
  { names: ['token'], load: async () => (await import('./commands/token.js')).registerToken },
  { names: ['push'], load: async () => (await import('./commands/push.js')).registerPush },
  { names: ['sync'], load: async () => (await import('./commands/sync.js')).registerSync },
  { names: ['search'], load: async () => (await import('./commands/search.js')).registerSearch },
  { names: ['stats'], load: async () => (await import('./commands/stats.js')).registerStats },
  { names: ['export'], load: async () => (await import('./commands/export.js')).registerExport },
];

/** Every command, in the order `--help` lists them (commands/index.ts). */
const ALL: CommandModule = {
  names: [],
  load: async () => (await import('./commands/index.js')).registerCommands,
};

/**
 * What a command line (the arguments after node and the script) needs: `undefined` for a bare
 * `--version`/`-V` (no command, no format), the named command's file when the first argument names
 * one, and every command otherwise, so that `--help`, `help <command>`, a misspelt command ("did you
 * mean") and options before the command read as they did with every command loaded.
 */
export function commandModuleFor(args: readonly string[]): CommandModule | undefined {
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) return undefined;
  const first = args[0];
  return COMMAND_MODULES.find((m) => first !== undefined && m.names.includes(first)) ?? ALL;
}

/** The agents' formats and threadbase's own store as sources (every command that has a context reads them). */
export async function loadFormats(): Promise<void> {
  await import('../formats/all.js');
  // threadbase's own sessions (ClaudeAgentStorage, convert --to threadbase) as the `threadbase` source
  await import('../stores/local-source.js');
}
