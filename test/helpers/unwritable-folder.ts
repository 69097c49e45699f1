/**
 * A folder this process cannot write in, for the tests of read-only places: chmod 555, and where
 * that does not stop this process (root) the folder is made immutable (chattr +i).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Makes `dir` unwritable for this process; how to undo it, or undefined where it cannot be done. */
export function makeUnwritable(dir: string): (() => void) | undefined {
  const writable = () => {
    try {
      writeFileSync(join(dir, 'probe'), '');
      rmSync(join(dir, 'probe'));
      return true;
    } catch {
      return false;
    }
  };
  chmodSync(dir, 0o555);
  if (!writable()) return () => chmodSync(dir, 0o755);
  chmodSync(dir, 0o755);
  try {
    execFileSync('chattr', ['+i', dir], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  const back = () => execFileSync('chattr', ['-i', dir], { stdio: 'ignore' });
  if (!writable()) return back;
  back();
  return undefined;
}
