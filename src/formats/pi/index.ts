/** pi (@mariozechner/pi-coding-agent): JSONL session trees under ~/.pi/agent/sessions. */
import { registerConversionLosses } from '../../convert/losses.js';
import { registerResumeContext } from '../../model/resume.js';
import { registerFormat } from '../registry.js';
import { PiDriver, piContext } from './driver.js';
import { describePiLosses } from './losses.js';

registerFormat('pi', (env) => new PiDriver(env));
registerResumeContext('pi', piContext);
registerConversionLosses('pi', describePiLosses);

export { PiDriver } from './driver.js';
export { currentLeafLast, encodeEntries, encodePiSessionFile } from './encode.js';
export { messagesToPi } from './llm.js';
export { parsePiFile } from './parse.js';
export { sessionDirName } from './records.js';
