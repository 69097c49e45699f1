/** Qwen Code (QwenLM/qwen-code): chats under ~/.qwen/projects/<project>/chats, read and written. */

export { ORPHAN_TOOL_USE_REPAIR_REASON, qwenContext } from './context.js';
export { QwenDriver, qwenDir, sanitizeCwd } from './driver.js';
export { encodeQwenRecords } from './encode.js';
export { readQwenChat } from './records.js';
export { register } from './register.js';
