/** Registers the codex format: its driver, resume context and losses, what reading needs (index.ts also exports the encoder). */
import { registerContextFormat } from '../../convert/formats.js';
import { registerConversionLosses } from '../../convert/losses.js';
import { registerResumeContext } from '../../model/resume.js';
import { registerFormat } from '../registry.js';
import { CodexDriver, codexContext } from './driver.js';
import { contextToResponses } from './encode.js';
import { describeCodexLosses } from './losses.js';

export function register(): void {
  registerFormat('codex', (env) => new CodexDriver(env));
  // base instructions (session_meta) and a compaction's replacement history
  registerResumeContext('codex', codexContext, { session: true, entryKinds: ['compaction'] });
  registerConversionLosses('codex', describeCodexLosses);
  // The Responses API `input` shape, which is what codex sends on resume.
  registerContextFormat('openai-responses', contextToResponses);
}

register();
