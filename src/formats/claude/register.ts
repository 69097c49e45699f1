/** Registers the claude format: its driver, resume context and losses, what reading needs (index.ts also exports the encoder). */
import { registerConversionLosses } from '../../convert/losses.js';
import { registerSentWording } from '../../convert/sent-wording.js';
import { registerResumeContext } from '../../model/resume.js';
import { registerFormat } from '../registry.js';
import { stoppedCallsInClaudeWords } from './denials.js';
import { ClaudeDriver, claudeContext } from './driver.js';
import { describeClaudeLosses } from './losses.js';
import { claudeSentWording } from './notifications.js';
import { claudeSentEntries } from './reminders.js';

export function register(): void {
  registerFormat('claude', (env) => new ClaudeDriver(env));
  registerResumeContext('claude', claudeContext);
  registerConversionLosses('claude', describeClaudeLosses);
  // a stopped call's result keeps Claude Code's words (denials.ts), a notification gets its reminder (notifications.ts)
  registerSentWording('claude', (m) => claudeSentWording(stoppedCallsInClaudeWords(m)), claudeSentEntries);
}

register();
