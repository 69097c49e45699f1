/** Registers the qwen format: its driver, resume context and losses, what reading needs (index.ts also exports the encoder). */
import { registerConversionLosses } from '../../convert/losses.js';
import { registerResumeContext } from '../../model/resume.js';
import { registerFormat } from '../registry.js';
import { qwenContext } from './context.js';
import { QwenDriver } from './driver.js';
import { describeQwenLosses } from './losses.js';

export function register(): void {
  registerFormat('qwen', (env) => new QwenDriver(env));
  registerResumeContext('qwen', qwenContext);
  registerConversionLosses('qwen', describeQwenLosses);
}

register();
