/** Registers the opencode format: its driver, resume context and losses, what reading needs (index.ts also exports the encoder). */
import { registerConversionLosses } from '../../convert/losses.js';
import { registerResumeContext } from '../../model/resume.js';
import { registerFormat } from '../registry.js';
import { opencodeContext } from './context.js';
import { OpenCodeDriver } from './driver.js';
import { describeOpenCodeLosses } from './losses.js';

export function register(): void {
  registerFormat('opencode', (env) => new OpenCodeDriver(env));
  // a compaction's summary message, sent as recorded
  registerResumeContext('opencode', opencodeContext, { entryKinds: ['compaction'] });
  registerConversionLosses('opencode', describeOpenCodeLosses);
}

register();
