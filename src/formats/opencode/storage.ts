/**
 * The JSON storage of OpenCode before its database (still on many machines):
 * `storage/project/<projectID>.json`, `storage/session/<projectID>/<sessionID>.json`,
 * `storage/message/<sessionID>/<messageID>.json`, `storage/part/<messageID>/<partID>.json`.
 * A file that does not parse is skipped with a warning naming it. Writing puts each record in a
 * new file atomically (temp + fsync + rename), session file last so a reader never sees a session
 * whose messages are missing.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { ParseWarning } from '../../model/types.js';
import { writeFileAtomic } from '../shared/atomic.js';
import { dirEntries } from '../shared/base.js';
import { parseJson } from '../shared/jsonl.js';
import { isJson, type Json, type OcMessage, type OcSessionData, str } from './records.js';

async function readJsonFile(file: string, warnings: ParseWarning[]): Promise<Json | undefined> {
  let text: string;
  try {
    // Regular files only: reading a FIFO named like a record would block until a writer came.
    const st = await fs.stat(file);
    if (!st.isFile()) {
      warnings.push({ file, message: 'not a regular file; skipped' });
      return undefined;
    }
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    warnings.push({ file, message: `cannot read: ${(err as Error).message}` });
    return undefined;
  }
  try {
    const v: unknown = parseJson(text);
    if (isJson(v)) return v;
    warnings.push({ file, message: 'not a JSON object; skipped' });
  } catch (err) {
    warnings.push({ file, message: `malformed JSON (${(err as Error).message}); skipped` });
  }
  return undefined;
}

async function jsonFiles(dir: string): Promise<string[]> {
  try {
    return (await fs.readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  } catch {
    return [];
  }
}

/**
 * Every path a listing of the JSON storage depends on: the project files, each session file, and the
 * message folders whose files it counts (a folder's times move when a message file comes or goes).
 */
export function legacyListingPaths(storage: string): string[] {
  const sessionRoot = join(storage, 'session');
  const names = (dir: string) =>
    dirEntries(dir)
      .filter((d) => d.isFile() && d.name.endsWith('.json'))
      .map((d) => d.name)
      .sort();
  const projects = dirEntries(sessionRoot).filter((d) => d.isDirectory());
  if (projects.length === 0) return [];
  const out = [sessionRoot, join(storage, 'project'), join(storage, 'message')];
  for (const f of names(join(storage, 'project'))) out.push(join(storage, 'project', f));
  for (const projectID of projects.map((d) => d.name).sort()) {
    out.push(join(sessionRoot, projectID));
    for (const f of names(join(sessionRoot, projectID)))
      out.push(join(sessionRoot, projectID, f), join(storage, 'message', f.slice(0, -'.json'.length)));
  }
  return out;
}

/** The projects of the JSON storage (`storage/project/<id>.json`: id, worktree). */
export async function listLegacyProjects(storage: string): Promise<{ id: string; worktree: string }[]> {
  const out: { id: string; worktree: string }[] = [];
  for (const f of await jsonFiles(join(storage, 'project'))) {
    const p = await readJsonFile(join(storage, 'project', f), []);
    const worktree = str(p?.worktree);
    if (worktree) out.push({ id: str(p?.id) ?? f.slice(0, -5), worktree });
  }
  return out;
}

export interface LegacySessionRef {
  file: string;
  info: Json;
  project?: { id: string; worktree: string };
}

/** Every session file under `storage/session/<projectID>/`. */
export async function listLegacySessions(storage: string, warnings: ParseWarning[] = []): Promise<LegacySessionRef[]> {
  const out: LegacySessionRef[] = [];
  let projects: string[];
  try {
    projects = (await fs.readdir(join(storage, 'session'), { withFileTypes: true }))
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    return out;
  }
  for (const projectID of projects) {
    const projectJson = await readJsonFile(join(storage, 'project', `${projectID}.json`), []);
    const worktree = str(projectJson?.worktree);
    for (const f of await jsonFiles(join(storage, 'session', projectID))) {
      const file = join(storage, 'session', projectID, f);
      const info = await readJsonFile(file, warnings);
      if (!info || typeof info.id !== 'string') {
        if (info) warnings.push({ file, message: 'session file without an id; skipped' });
        continue;
      }
      out.push({ file, info, ...(worktree ? { project: { id: projectID, worktree } } : {}) });
    }
  }
  return out;
}

/** One legacy session's messages and parts. */
export async function readLegacySession(
  storage: string,
  ref: LegacySessionRef,
  warnings: ParseWarning[],
): Promise<OcSessionData> {
  const sessionId = str(ref.info.id) ?? '';
  const messages: OcMessage[] = [];
  const messageDir = join(storage, 'message', sessionId);
  for (const f of await jsonFiles(messageDir)) {
    const info = await readJsonFile(join(messageDir, f), warnings);
    if (!info) continue;
    const id = str(info.id) ?? f.slice(0, -5);
    const partDir = join(storage, 'part', id);
    const parts: Json[] = [];
    for (const pf of await jsonFiles(partDir)) {
      const p = await readJsonFile(join(partDir, pf), warnings);
      if (p) parts.push({ ...p, id: str(p.id) ?? pf.slice(0, -5) });
    }
    parts.sort((a, b) => (String(a.id) < String(b.id) ? -1 : 1));
    messages.push({ info: { ...info, id }, parts });
  }
  return { info: ref.info, messages, ...(ref.project ? { project: ref.project } : {}) };
}

const pretty = (v: unknown) => JSON.stringify(v, null, 2);

/** Writes a session as legacy JSON files (new files only; never overwrites). */
export async function writeLegacySession(storage: string, data: OcSessionData): Promise<string> {
  const sessionId = str(data.info.id) ?? '';
  const projectID = str(data.info.projectID) ?? 'global';
  if (data.project) {
    const projectFile = join(storage, 'project', `${projectID}.json`);
    const exists = await fs.stat(projectFile).then(
      () => true,
      () => false,
    );
    if (!exists)
      await writeFileAtomic(
        projectFile,
        pretty({
          id: projectID,
          worktree: data.project.worktree,
          ...(data.project.vcs ? { vcs: data.project.vcs } : {}),
          time: { created: Date.now() },
        }),
        { exclusive: true },
      );
  }
  for (const m of data.messages) {
    const id = str(m.info.id) ?? '';
    for (const p of m.parts)
      await writeFileAtomic(join(storage, 'part', id, `${String(p.id)}.json`), pretty(p), { exclusive: true });
    await writeFileAtomic(join(storage, 'message', sessionId, `${id}.json`), pretty(m.info), { exclusive: true });
  }
  const sessionFile = join(storage, 'session', projectID, `${sessionId}.json`);
  await writeFileAtomic(sessionFile, pretty(data.info), { exclusive: true });
  return sessionFile;
}

/**
 * Appends messages to a legacy session: new message and part files first (never overwriting), then
 * the completed tool parts, then the session file (totals and time.updated) last, each atomically.
 */
export async function appendLegacySession(
  storage: string,
  ref: LegacySessionRef,
  messages: readonly OcMessage[],
  updatedParts: readonly Json[],
  totals: { tokens: { input: number; output: number; reasoning: number; cache: { read: number; write: number } }; cost: number },
): Promise<void> {
  const sessionId = str(ref.info.id) ?? '';
  for (const m of messages) {
    const id = str(m.info.id) ?? '';
    for (const p of m.parts)
      await writeFileAtomic(join(storage, 'part', id, `${String(p.id)}.json`), pretty(p), { exclusive: true });
    await writeFileAtomic(join(storage, 'message', sessionId, `${id}.json`), pretty(m.info), { exclusive: true });
  }
  for (const p of updatedParts)
    await writeFileAtomic(join(storage, 'part', String(p.messageID), `${String(p.id)}.json`), pretty(p));
  const info = structuredClone(ref.info);
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  const tokens = isJson(info.tokens) ? info.tokens : undefined;
  if (tokens) {
    const cache = isJson(tokens.cache) ? tokens.cache : {};
    tokens.input = n(tokens.input) + totals.tokens.input;
    tokens.output = n(tokens.output) + totals.tokens.output;
    tokens.reasoning = n(tokens.reasoning) + totals.tokens.reasoning;
    tokens.cache = {
      ...cache,
      read: n(cache.read) + totals.tokens.cache.read,
      write: n(cache.write) + totals.tokens.cache.write,
    };
  }
  if (typeof info.cost === 'number') info.cost += totals.cost;
  info.time = { ...(isJson(info.time) ? info.time : {}), updated: Date.now() };
  await writeFileAtomic(ref.file, pretty(info));
}

/** Renames a legacy session (its session file rewritten atomically). */
export async function setLegacyTitle(ref: LegacySessionRef, title: string): Promise<void> {
  const info = { ...ref.info, title, time: { ...(isJson(ref.info.time) ? ref.info.time : {}), updated: Date.now() } };
  await writeFileAtomic(ref.file, pretty(info));
}
