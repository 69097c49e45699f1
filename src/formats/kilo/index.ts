/** Kilo CLI (Kilo-Org/kilocode): OpenCode's records in kilo.db, read and written with OpenCode's code. */
import { registerConversionLosses } from '../../convert/losses.js';
import { registerResumeContext } from '../../model/resume.js';
import { registerOpenCodeRecords } from '../opencode/records.js';
import { registerFormat } from '../registry.js';
import { kiloContext } from './context.js';
import { KiloDriver } from './driver.js';
import { SOURCE } from './flavor.js';
import { describeKiloLosses } from './losses.js';

export { environmentDetails, kiloContext } from './context.js';
export { KiloDriver, kiloDbPath } from './driver.js';
export { KILO } from './flavor.js';

export function register(): void {
  registerOpenCodeRecords(SOURCE);
  registerFormat(SOURCE, (env) => new KiloDriver(env));
  // OpenCode's context (a compaction's summary message sent as recorded) and Kilo's environment details
  registerResumeContext(SOURCE, kiloContext, { entryKinds: ['compaction'] });
  registerConversionLosses(SOURCE, describeKiloLosses);
}

register();
