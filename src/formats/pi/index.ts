/** pi (@mariozechner/pi-coding-agent): JSONL session trees under ~/.pi/agent/sessions. */

export { PiDriver } from './driver.js';
export { currentLeafLast, encodeEntries, encodePiSessionFile } from './encode.js';
export { messagesToPi } from './llm.js';
export { parsePiFile } from './parse.js';
export { sessionDirName } from './records.js';
export { register } from './register.js';
