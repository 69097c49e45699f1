/** Every CLI command; each file registers its own. */
import type { Command } from 'commander';
import type { CliContext } from '../io.js';
import { registerBranch } from './branch.js';
import { registerConvert } from './convert.js';
import { registerSessions } from './sessions.js';
import { registerShow } from './show.js';
import { registerUi } from './ui.js';
import { registerServe } from './serve.js';
import { registerToken } from './token.js';
import { registerPush } from './push.js';
import { registerSync } from './sync.js';
import { registerSearch } from './search.js';
import { registerStats } from './stats.js';
import { registerExport } from './export.js';

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
