/** OpenCode (sst/opencode): sessions in opencode.db (SQLite) and in the JSON storage before it; read, write, fork. */
import { registerConversionLosses } from '../../convert/losses.js';
import { registerResumeContext } from '../../model/resume.js';
import { registerFormat } from '../registry.js';
import { opencodeContext } from './context.js';
import { OpenCodeDriver } from './driver.js';
import { describeOpenCodeLosses } from './losses.js';

export { opencodeContext } from './context.js';
export { forkTitle, OpenCodeDriver } from './driver.js';
export { type EncodeOptions, type EncodeSeed, encodeEntries, encodeSession, totalsOf } from './encode.js';
export {
  dataToExport,
  type EncodedOpenCode,
  encodeOpenCodeSession,
  exportToData,
  sessionAsOpencodeExport,
  sessionFromExport,
  sessionToExport,
} from './export.js';
export { describeLossesAs, describeOpenCodeLosses } from './losses.js';
export { COMPACTION_PROMPT, sessionFromOpencode } from './parse.js';
export { gitProjectOf, remoteKey } from './project.js';
export {
  holdsOpenCodeRecords,
  newId,
  type OcMessage,
  type OcSessionData,
  OPENCODE,
  type OpenCodeFlavor,
  opencodeDataDir,
  opencodeDbPath,
  opencodeStorageDir,
  registerOpenCodeRecords,
} from './records.js';
export { appendSessionData, listSessionRows, readSessionData, setSessionTitle, writeSessionData } from './sqlite.js';
export {
  appendLegacySession,
  listLegacySessions,
  readLegacySession,
  setLegacyTitle,
  writeLegacySession,
} from './storage.js';

export function register(): void {
  registerFormat('opencode', (env) => new OpenCodeDriver(env));
  // a compaction's summary message, sent as recorded
  registerResumeContext('opencode', opencodeContext, { entryKinds: ['compaction'] });
  registerConversionLosses('opencode', describeOpenCodeLosses);
}

register();
