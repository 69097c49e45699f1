/** Every CLI command; each file registers its own. */
import type { Command } from 'commander';
import type { CliContext } from '../io.js';
import { registerBranch } from './branch.js';
import { registerConvert } from './convert.js';
import { registerExport } from './export.js';
import { registerPush } from './push.js';
import { registerSearch } from './search.js';
import { registerServe } from './serve.js';
import { registerSessions } from './sessions.js';
import { registerShow } from './show.js';
import { registerStats } from './stats.js';
import { registerSync } from './sync.js';
import { registerToken } from './token.js';
import { registerUi } from './ui.js';

export function registerCommands(program: Command, ctx: CliContext): void {
  registerSessions(program, ctx);
  registerShow(program, ctx);
  registerConvert(program, ctx);
  registerBranch(program, ctx);
  registerUi(program, ctx);
  registerServe(program, ctx);
  registerToken(program, ctx);
  registerPush(program, ctx);
  registerSync(program, ctx);
  registerSearch(program, ctx);
  registerStats(program, ctx);
  registerExport(program, ctx);
}
