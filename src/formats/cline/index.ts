/** Cline (cline/cline): the CLI's sessions under ~/.cline/data and the VS Code extension's tasks (Roo Code, Kilo Code too); CLI sessions written too. */
import { registerConversionLosses } from '../../convert/losses.js';
import { registerResumeContext } from '../../model/resume.js';
import { registerFormat } from '../registry.js';
import { clineContext } from './context.js';
import { ClineDriver } from './driver.js';
import { describeClineLosses } from './losses.js';

export { CLINE_EXTENSIONS, ClineDriver, clineSessionsDir, editorStorageDirs, newClineSessionId } from './driver.js';
export { encodeClineMessages } from './encode.js';
export { readCliSession, readExtensionTask } from './sessions.js';

export function register(): void {
  registerFormat('cline', (env) => new ClineDriver(env));
  registerResumeContext('cline', clineContext);
  registerConversionLosses('cline', describeClineLosses);
}

register();
