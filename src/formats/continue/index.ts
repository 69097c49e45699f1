/** Continue CLI (`cn`, continuedev/continue): sessions under ~/.continue/sessions, read and written. */

export { continueContext, TOOL_CANCELLED } from './context.js';
export { ContinueDriver, continueDir } from './driver.js';
export { encodeContinueSession } from './encode.js';
export { readContinueSession } from './history.js';
export { register } from './register.js';
