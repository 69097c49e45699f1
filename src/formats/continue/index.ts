/** Continue CLI (`cn`, continuedev/continue): sessions under ~/.continue/sessions, read and written. */
import { registerConversionLosses } from '../../convert/losses.js';
import { registerResumeContext } from '../../model/resume.js';
import { registerFormat } from '../registry.js';
import { continueContext } from './context.js';
import { ContinueDriver } from './driver.js';
import { describeContinueLosses } from './losses.js';

export { continueContext, TOOL_CANCELLED } from './context.js';
export { ContinueDriver, continueDir } from './driver.js';
export { encodeContinueSession } from './encode.js';
export { readContinueSession } from './history.js';

export function register(): void {
  registerFormat('continue', (env) => new ContinueDriver(env));
  // its context reads a summary item's role (cn's own and threadbase's: the model's turn; an older threadbase's: the user's)
  registerResumeContext('continue', continueContext, { entryKinds: ['compaction'] });
  registerConversionLosses('continue', describeContinueLosses);
}

register();
