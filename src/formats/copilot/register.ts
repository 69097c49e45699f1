/** Registers the copilot format: its driver, resume context and losses, what reading needs (index.ts also exports the encoder). */
import { registerConversionLosses } from '../../convert/losses.js';
import { registerResumeContext } from '../../model/resume.js';
import { registerFormat } from '../registry.js';
import { copilotContext } from './context.js';
import { CopilotDriver } from './driver.js';
import { describeCopilotLosses } from './losses.js';

export function register(): void {
  registerFormat('copilot', (env) => new CopilotDriver(env));
  registerConversionLosses('copilot', describeCopilotLosses);
  registerResumeContext('copilot', copilotContext);
}

register();
