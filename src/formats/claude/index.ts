/** Claude Code (`~/.claude` or $CLAUDE_CONFIG_DIR): read, write, append and fork its JSONL transcripts. */
import { registerConversionLosses } from '../../convert/losses.js';
import { registerSentWording } from '../../convert/sent-wording.js';
import { registerResumeContext } from '../../model/resume.js';
import { registerFormat } from '../registry.js';
import { ClaudeDriver, claudeContext } from './driver.js';
import { describeClaudeLosses } from './losses.js';
import { claudeSentWording } from './notifications.js';

export { ClaudeDriver, claudeContext, claudeWording } from './driver.js';
export { encodeClaudeTranscript, encodeSession } from './encode.js';
export { parseTranscript } from './parse.js';
export { claudeDir, encodeProjectPath, findSessionFiles, locateSessionFile } from './paths.js';

export function register(): void {
  registerFormat('claude', (env) => new ClaudeDriver(env));
  registerResumeContext('claude', claudeContext);
  registerConversionLosses('claude', describeClaudeLosses);
  registerSentWording('claude', claudeSentWording);
}

register();
