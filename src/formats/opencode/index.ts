/** OpenCode (sst/opencode): sessions in opencode.db (SQLite) and in the JSON storage before it; read, write, fork. */

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
export { register } from './register.js';
export { appendSessionData, listSessionRows, readSessionData, setSessionTitle, writeSessionData } from './sqlite.js';
export {
  appendLegacySession,
  listLegacySessions,
  readLegacySession,
  setLegacyTitle,
  writeLegacySession,
} from './storage.js';
