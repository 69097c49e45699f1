/**
 * Copilot CLI's `workspace.yaml` beside a session's events: flat `key: value` lines (cwd, name,
 * user_named, created_at, ...), written by its own YAML writer. Only the top-level scalars the
 * listing uses are read; a value this reader cannot take is left out, never guessed.
 */
import { promises as fs } from 'node:fs';
import type { Workspace } from './events.js';

/** One YAML scalar: plain, 'single-quoted' ('' is a quote) or "double-quoted" (JSON escapes). */
function scalar(text: string): string | undefined {
  const t = text.trim();
  if (t.startsWith("'")) return t.endsWith("'") && t.length > 1 ? t.slice(1, -1).replace(/''/g, "'") : undefined;
  if (t.startsWith('"')) {
    try {
      const v: unknown = JSON.parse(t);
      return typeof v === 'string' ? v : undefined;
    } catch {
      return undefined;
    }
  }
  // a block scalar (| or >) or a flow collection is not one line's value
  if (/^[|>[{&*!]/.test(t)) return undefined;
  return t.replace(/\s+#.*$/, '');
}

export function parseWorkspace(text: string): Workspace {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^([A-Za-z_][\w-]*):(?:\s+(.*))?$/.exec(line);
    if (!m?.[1] || m[2] === undefined) continue;
    const v = scalar(m[2]);
    if (v !== undefined) fields.set(m[1], v);
  }
  const cwd = fields.get('cwd');
  const name = fields.get('name')?.trim();
  return {
    ...(cwd ? { cwd } : {}),
    ...(name ? { name } : {}),
    ...(fields.has('user_named') ? { userNamed: fields.get('user_named') === 'true' } : {}),
  };
}

/** The session folder's workspace.yaml, or nothing when it is absent or unreadable. */
export async function readWorkspace(file: string): Promise<Workspace> {
  try {
    return parseWorkspace(await fs.readFile(file, 'utf8'));
  } catch {
    return {};
  }
}
