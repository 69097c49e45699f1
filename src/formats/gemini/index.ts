/** Gemini CLI (google-gemini/gemini-cli): saved chats and /chat save checkpoints under ~/.gemini/tmp; read-only. */
import { registerFormat } from '../registry.js';
import { GeminiDriver } from './driver.js';

export { readChat, readCheckpoint } from './chats.js';
export { GeminiDriver, geminiDir } from './driver.js';

export function register(): void {
  registerFormat('gemini', (env) => new GeminiDriver(env));
}

register();
