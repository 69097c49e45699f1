/**
 * What the hardening tests (fuzz, crash, read-only, concurrent) check a fixture home with (its homes:
 * test/helpers/fixture-homes.ts, every fixture of the agents): file lists and snapshots, and the
 * figures RELIABILITY.md quotes.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** Every regular file under dir, relative paths sorted. */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(d: string): Promise<void> {
    let items: import('node:fs').Dirent[];
    try {
      items = await fs.readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const it of items) {
      const p = join(d, it.name);
      if (it.isDirectory()) await walk(p);
      else if (it.isFile()) out.push(relative(dir, p));
    }
  }
  await walk(dir);
  return out.sort();
}

export interface FileState {
  sha256: string;
  size: number;
  mtimeMs: number;
}

/** sha256, size and mtime of every file under dir. */
export async function snapshot(dir: string): Promise<Map<string, FileState>> {
  const out = new Map<string, FileState>();
  for (const rel of await listFiles(dir)) {
    const p = join(dir, rel);
    const [buf, st] = await Promise.all([fs.readFile(p), fs.stat(p)]);
    out.set(rel, { sha256: createHash('sha256').update(buf).digest('hex'), size: st.size, mtimeMs: st.mtimeMs });
  }
  return out;
}

/** What differs between two snapshots, one line a file. */
export function diffSnapshots(before: Map<string, FileState>, after: Map<string, FileState>): string[] {
  const out: string[] = [];
  for (const [k, v] of before) {
    const w = after.get(k);
    if (!w) out.push(`deleted ${k}`);
    else if (w.sha256 !== v.sha256) out.push(`changed ${k}`);
    else if (w.mtimeMs !== v.mtimeMs) out.push(`touched ${k}`);
  }
  for (const k of after.keys()) if (!before.has(k)) out.push(`created ${k}`);
  return out;
}

/** Adds figures to test-results/hardening.json (merged by key), which RELIABILITY.md quotes. */
export async function recordFigures(section: string, figures: Record<string, unknown>): Promise<void> {
  const file = resolve('test-results/hardening.json');
  await fs.mkdir(resolve('test-results'), { recursive: true });
  let all: Record<string, unknown> = {};
  try {
    all = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
  } catch {
    // first writer
  }
  const prev = (all[section] ?? {}) as Record<string, unknown>;
  all[section] = { ...prev, ...figures, recordedAt: new Date().toISOString() };
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, `${JSON.stringify(all, null, 2)}\n`);
  await fs.rename(tmp, file);
}
