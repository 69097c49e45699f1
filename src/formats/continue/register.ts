/** Registers the continue format: its driver, resume context and losses, what reading needs (index.ts also exports the encoder). */
import { registerConversionLosses } from '../../convert/losses.js';
import { registerResumeContext } from '../../model/resume.js';
import { registerFormat } from '../registry.js';
import { continueContext } from './context.js';
import { ContinueDriver } from './driver.js';
import { describeContinueLosses } from './losses.js';

export function register(): void {
  registerFormat('continue', (env) => new ContinueDriver(env));
  // its context reads a summary item's role (cn's own and threadbase's: the model's turn; an older threadbase's: the user's)
  registerResumeContext('continue', continueContext, { entryKinds: ['compaction'] });
  registerConversionLosses('continue', describeContinueLosses);
}

register();
