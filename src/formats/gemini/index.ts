/** Gemini CLI (google-gemini/gemini-cli): saved chats and /chat save checkpoints under ~/.gemini/tmp; chats written too. */
import { registerContextFormat } from '../../convert/formats.js';
import { registerConversionLosses } from '../../convert/losses.js';
import { registerResumeContext } from '../../model/resume.js';
import { registerFormat } from '../registry.js';
import { contextToGeminiRequest, geminiContext } from './context.js';
import { GeminiDriver } from './driver.js';
import { describeGeminiLosses } from './losses.js';

export { readChat, readCheckpoint } from './chats.js';
export { contextToGeminiContents, contextToGeminiRequest, geminiContext } from './context.js';
export { GeminiDriver, geminiDir } from './driver.js';
export { encodeChatRecords } from './encode.js';

export function register(): void {
  registerFormat('gemini', (env) => new GeminiDriver(env));
  registerResumeContext('gemini', geminiContext);
  registerConversionLosses('gemini', describeGeminiLosses);
  // `threadbase context --format gemini`: the request body Gemini CLI sends on resume
  registerContextFormat('gemini', contextToGeminiRequest);
}

register();
