/** Codex CLI (openai/codex): rollouts under $CODEX_HOME/sessions; read, write, append, fork. */

export { CodexDriver, codexContext, codexHome, encodeRollout } from './driver.js';
export { contextToResponses, messageToItems } from './encode.js';
export { SUMMARY_PREFIX } from './items.js';
export { register } from './register.js';
export { readRollout } from './rollout.js';
