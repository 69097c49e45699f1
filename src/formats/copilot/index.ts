/** GitHub Copilot CLI (@github/copilot): sessions under ~/.copilot/session-state; new sessions written too. */

export { copilotContext } from './context.js';
export { CopilotDriver, copilotDir } from './driver.js';
export { COPILOT_VERSION, encodeCopilotEvents } from './encode.js';
export { parseEvents, usageOf } from './events.js';
export { register } from './register.js';
export { parseWorkspace } from './workspace.js';
