/**
 * The Kilo CLI driver: OpenCode's driver on Kilo's database (flavor.ts), with OpenCode's
 * capabilities, Kilo's tables and records being OpenCode's.
 */
import type { DriverEnv } from '../../model/driver.js';
import { OpenCodeDriver } from '../opencode/driver.js';
import { opencodeDbPath } from '../opencode/records.js';
import { KILO } from './flavor.js';

export class KiloDriver extends OpenCodeDriver {
  constructor(env: DriverEnv) {
    super(env, KILO);
  }
}

/** Where Kilo CLI keeps its sessions: `$KILO_DB`, else `kilo.db` in `$XDG_DATA_HOME/kilo`. */
export function kiloDbPath(env: DriverEnv): string {
  return opencodeDbPath(env, KILO);
}
