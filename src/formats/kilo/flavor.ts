/**
 * Kilo CLI (Kilo-Org/kilocode, npm `@kilocode/cli`): a fork of OpenCode keeping OpenCode's records
 * (the same project/session/message/part tables and JSON) under its own names, found in 7.7.7:
 * `$XDG_DATA_HOME/kilo/kilo.db` (or `$KILO_DB`; a release channel's `kilo-<channel>.db`, or
 * OpenCode's `opencode-<channel>.db` when only that is there), its git project id cached in the
 * common git directory's `kilo` file, and `code` as its default agent (OpenCode's is `build`).
 */
import type { OpenCodeFlavor } from '../opencode/records.js';

export const SOURCE = 'kilo';
/** The Kilo CLI version whose sessions threadbase writes (its schema seen in FORMAT.md). */
export const WRITTEN_VERSION = '7.7.7';

export const KILO: OpenCodeFlavor = {
  source: SOURCE,
  label: 'Kilo CLI',
  dataDir: 'kilo',
  dbFile: 'kilo.db',
  dbEnv: 'KILO_DB',
  channelDb: /^(kilo|opencode)-[A-Za-z0-9._-]+\.db$/,
  gitCacheFile: 'kilo',
  writtenVersion: WRITTEN_VERSION,
  agent: 'code',
  command: 'kilo',
  // Kilo's retention deletes by time_updated (FORMAT.md): a written session's is the write time, its own kept
  keepsOwnLastTime: true,
};
