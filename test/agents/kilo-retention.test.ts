/**
 * A session 60 days old converted into Kilo CLI survives Kilo's session retention, which the real `kilo`
 * (7.7.7) runs when a client asks (`POST /kilocode/retention/run` to `kilo serve`, as its VS Code and
 * desktop clients talk to it) with `retention.enabled: true` in kilo.json: it deletes each session whose
 * `time_updated` (the newest of its own and its sub-agents') is older than `retention.maxAgeDays` (30).
 * - a Claude Code session dated 60 days ago is converted with `threadbase convert <id> --to kilo`, twice;
 *   the second copy's row is then given the session's own last time as time_updated (a copy written
 *   with the source's time, what the pass must delete);
 * - the pass deletes that one only; the converted session is still there, read back with the session's
 *   own times, and `kilo run -s <id> <probe>` resumes it with threadbase's context.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { Sources } from '../../src/formats/registry.js';
import type { Session } from '../../src/model/types.js';
import { prepareKiloDatabase } from '../helpers/agent-db-templates.js';
import { convertInto } from '../helpers/agent-fixtures.js';
import type { AgentHome } from '../helpers/agents.js';
import { type AnthropicMessage, conversationOf } from '../helpers/anthropic-standin.js';
import { readContext, readSession } from '../helpers/conversions.js';
import { KILO_MODEL, kiloProbeRule, kiloRequestEndingWith, runKilo, setupKiloHome, startKiloServer } from '../helpers/kilo.js';
import { messageEntry, textMessage } from '../helpers/sessions.js';

const DAY = 86_400_000;

let home: AgentHome;
beforeAll(async () => {
  home = await setupKiloHome({ rules: [kiloProbeRule] });
  await prepareKiloDatabase(home);
  // retention on (it is off by default), Kilo's 30 days
  const config = join(home.root, '.config', 'kilo', 'kilo.json');
  const json = JSON.parse(await fs.readFile(config, 'utf8')) as Record<string, unknown>;
  await fs.writeFile(config, JSON.stringify({ ...json, retention: { enabled: true } }));
}, 120_000);
afterAll(async () => {
  await home?.close();
});

/** A Claude Code session of one exchange, 60 days old. */
function sixtyDaysOld(project: string): Session {
  const at = (s: number) => new Date(Date.now() - 60 * DAY + s * 1000).toISOString();
  return {
    id: '5b0e2a7c-61d4-4f3e-8c2a-9d7e6f5a4b01',
    source: 'claude',
    project,
    createdAt: at(0),
    updatedAt: at(2),
    messageCount: 2,
    entries: [
      messageEntry('u1', null, at(1), textMessage('user', 'remember the word marigold')),
      messageEntry('a1', 'u1', at(2), textMessage('assistant', 'marigold, noted', { model: 'claude-sonnet-4-5' })),
    ],
  };
}

const sessionIds = (db: string): string[] => {
  const r = new Database(db, { readonly: true });
  try {
    return (r.prepare('SELECT id FROM session').all() as { id: string }[]).map((s) => s.id);
  } finally {
    r.close();
  }
};

describe("a session 60 days old converted into Kilo CLI, with Kilo's retention on", () => {
  it("survives the retention pass a Kilo client asks for, keeps the session's own times, and is resumed with its context", async () => {
    const sources = new Sources(home.env);
    const source = await sources.driver('claude').writeSession?.(sixtyDaysOld(home.project));
    await sources.close();
    if (!source) throw new Error('claude wrote no session');
    const own = await readSession(home, 'claude', source.id);
    expect(Date.now() - Date.parse(own.updatedAt)).toBeGreaterThan(59 * DAY);

    const written = await convertInto(home, source.id, 'claude', 'kilo');
    const aged = await convertInto(home, source.id, 'claude', 'kilo');
    // a copy whose time_updated is the session's own last time: what retention deletes
    const w = new Database(aged.path);
    w.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(Date.parse(own.updatedAt), aged.id);
    w.close();
    const expected = contextToAnthropic(await readContext(home, 'kilo', written.id)).messages;

    const server = await startKiloServer(home);
    let pass: { policy: { enabled: boolean; maxAgeDays: number }; last?: { scanned: number; deleted: number } };
    try {
      const query = `?directory=${encodeURIComponent(home.project)}`;
      const res = await fetch(`${server.url}/kilocode/retention/run${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(200);
      pass = (await res.json()) as typeof pass;
    } finally {
      await server.close();
    }
    expect(pass.policy).toEqual({ enabled: true, maxAgeDays: 30 });
    expect(pass.last).toMatchObject({ scanned: 2, deleted: 1 });
    expect(sessionIds(written.path)).toEqual([written.id]);

    // read back with the source's times: Kilo's list shows the copy as new, threadbase the session's own
    const copy = await readSession(home, 'kilo', written.id);
    expect([copy.createdAt, copy.updatedAt]).toEqual([own.createdAt, own.updatedAt]);
    const listed = (await new Sources(home.env).driver('kilo').listSessions()).find((s) => s.id === written.id);
    expect(listed?.updatedAt).toBe(own.updatedAt);

    const project = copy.project as string;
    await runKilo(home, ['run', '-m', KILO_MODEL, '-s', written.id, ...'probe after retention'.split(' ')], project);
    const sent = kiloRequestEndingWith(home, 'probe after retention').messages;
    expect(conversationOf(sent.slice(0, -1))).toEqual(conversationOf(expected as AnthropicMessage[]));
    expect(JSON.stringify(sent)).toContain('marigold, noted');
    // Kilo carried the session on: its own later time is the session's last time now
    expect(Date.parse((await readSession(home, 'kilo', written.id)).updatedAt)).toBeGreaterThan(Date.now() - DAY);
  }, 180_000);
});
