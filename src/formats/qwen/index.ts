/** Qwen Code (QwenLM/qwen-code): chats under ~/.qwen/projects/<project>/chats, read and written. */
import { registerConversionLosses } from '../../convert/losses.js';
import { registerResumeContext } from '../../model/resume.js';
import { registerFormat } from '../registry.js';
import { qwenContext } from './context.js';
import { QwenDriver } from './driver.js';
import { describeQwenLosses } from './losses.js';

export { ORPHAN_TOOL_USE_REPAIR_REASON, qwenContext } from './context.js';
export { QwenDriver, qwenDir, sanitizeCwd } from './driver.js';
export { encodeQwenRecords } from './encode.js';
export { readQwenChat } from './records.js';

export function register(): void {
  registerFormat('qwen', (env) => new QwenDriver(env));
  registerResumeContext('qwen', qwenContext);
  registerConversionLosses('qwen', describeQwenLosses);
}

register();
