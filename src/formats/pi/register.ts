/** Registers the pi format: its driver, resume context and losses, what reading needs (index.ts also exports the encoder). */
import { registerConversionLosses } from '../../convert/losses.js';
import { registerResumeContext } from '../../model/resume.js';
import { registerFormat } from '../registry.js';
import { PiDriver, piContext } from './driver.js';
import { describePiLosses } from './losses.js';

export function register(): void {
  registerFormat('pi', (env) => new PiDriver(env));
  registerResumeContext('pi', piContext);
  registerConversionLosses('pi', describePiLosses);
}

register();
