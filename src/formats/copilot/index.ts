/** GitHub Copilot CLI (@github/copilot): sessions under ~/.copilot/session-state; new sessions written too. */
import { registerConversionLosses } from '../../convert/losses.js';
import { registerResumeContext } from '../../model/resume.js';
import { registerFormat } from '../registry.js';
import { copilotContext } from './context.js';
import { CopilotDriver } from './driver.js';
import { describeCopilotLosses } from './losses.js';

export { copilotContext } from './context.js';
export { CopilotDriver, copilotDir } from './driver.js';
export { COPILOT_VERSION, encodeCopilotEvents } from './encode.js';
export { parseEvents, usageOf } from './events.js';
export { parseWorkspace } from './workspace.js';

export function register(): void {
  registerFormat('copilot', (env) => new CopilotDriver(env));
  registerConversionLosses('copilot', describeCopilotLosses);
  registerResumeContext('copilot', copilotContext);
}

register();
