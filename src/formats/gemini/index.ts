/** Gemini CLI (google-gemini/gemini-cli): saved chats and /chat save checkpoints under ~/.gemini/tmp; chats written too. */

export { readChat, readCheckpoint } from './chats.js';
export { contextToGeminiContents, contextToGeminiRequest, geminiContext } from './context.js';
export { GeminiDriver, geminiDir } from './driver.js';
export { encodeChatRecords } from './encode.js';
export { register } from './register.js';
