/** GitHub Copilot CLI (@github/copilot): sessions under ~/.copilot/session-state, read-only. */
import { registerFormat } from '../registry.js';
import { CopilotDriver } from './driver.js';

export { CopilotDriver, copilotDir } from './driver.js';
export { parseEvents, usageOf } from './events.js';
export { parseWorkspace } from './workspace.js';

export function register(): void {
  registerFormat('copilot', (env) => new CopilotDriver(env));
}

register();
