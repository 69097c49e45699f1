/** Qwen Code (QwenLM/qwen-code): chats under ~/.qwen/projects/<project>/chats, read and written. */
import { registerConversionLosses } from '../../convert/losses.js';
import { registerFormat } from '../registry.js';
import { QwenDriver } from './driver.js';
import { describeQwenLosses } from './losses.js';

export { QwenDriver, qwenDir, sanitizeCwd } from './driver.js';
export { encodeQwenRecords } from './encode.js';
export { readQwenChat } from './records.js';

export function register(): void {
  registerFormat('qwen', (env) => new QwenDriver(env));
  registerConversionLosses('qwen', describeQwenLosses);
}

register();
