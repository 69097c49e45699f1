/** Registers the gemini format: its driver, resume context and losses, what reading needs (index.ts also exports the encoder). */
import { registerContextFormat } from '../../convert/formats.js';
import { registerConversionLosses } from '../../convert/losses.js';
import { registerResumeContext } from '../../model/resume.js';
import { registerFormat } from '../registry.js';
import { contextToGeminiRequest, geminiContext } from './context.js';
import { GeminiDriver } from './driver.js';
import { describeGeminiLosses } from './losses.js';

export function register(): void {
  registerFormat('gemini', (env) => new GeminiDriver(env));
  registerResumeContext('gemini', geminiContext);
  registerConversionLosses('gemini', describeGeminiLosses);
  // `threadbase context --format gemini`: the request body Gemini CLI sends on resume
  registerContextFormat('gemini', contextToGeminiRequest);
}

register();
