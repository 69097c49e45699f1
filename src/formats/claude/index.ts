/** Claude Code (`~/.claude` or $CLAUDE_CONFIG_DIR): read, write, append and fork its JSONL transcripts. */

export { ClaudeDriver, claudeContext, claudeWording } from './driver.js';
export { encodeClaudeTranscript, encodeSession } from './encode.js';
export { parseTranscript } from './parse.js';
export { claudeDir, encodeProjectPath, findSessionFiles, locateSessionFile } from './paths.js';
export { register } from './register.js';
