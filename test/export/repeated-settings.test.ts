/**
 * codex records its model with every turn: the export (HTML and Markdown) shows a model change only
 * when it changes something, as the viewer does, not a 'model changed to …' line per turn. pi's own
 * changes (a model, then a thinking level alone) stay. On the sessions the real agents wrote.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionToHtml, sessionToMarkdown } from '../../src/export/index.js';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { Session } from '../../src/model/types.js';
import { fixtureHome, PI_TOOL_CALL_ID } from '../helpers/fixture-homes.js';

/** codex 0.169: three turns (q1, q2 cut short, q3), each with codex's turn context naming standin-model */
const CODEX_ID = '01a21358-666b-7c82-921f-0c145035e213';

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe('model changes in the export', () => {
  let home: string;
  let sources: Sources;

  beforeAll(async () => {
    ({ home } = await fixtureHome({ prefix: 'threadbase-export-settings-', fixtures: ['codex', 'pi'] }));
    sources = new Sources({ home, env: { HOME: home } });
  });

  afterAll(async () => {
    await sources?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('codex: one model change for the model it kept on every turn', async () => {
    const session = (await sources.driver('codex').getSession(CODEX_ID)) as Session;
    const recorded = session.entries.filter((e) => e.kind === 'model_change' && e.model === 'standin-model');
    expect(recorded.length).toBeGreaterThan(1);
    expect(count(sessionToHtml(session), 'model changed to standin-model')).toBe(1);
    expect(count(sessionToMarkdown(session), 'model changed to standin-model')).toBe(1);
    // the turns are all there
    for (const q of ['q1', 'q2', 'q3']) expect(sessionToHtml(session)).toContain(`<div class="text">${q}</div>`);
  });

  it('pi: its model change and its thinking level change both stay', async () => {
    const session = (await sources.driver('pi').getSession(PI_TOOL_CALL_ID)) as Session;
    const md = sessionToMarkdown(session);
    expect(md).toContain('_model changed to claude-standin_');
    expect(md).toContain('_thinking level off_');
    const html = sessionToHtml(session);
    expect(html).toContain('<p class="dim">model changed to claude-standin</p>');
    expect(html).toContain('<p class="dim">thinking level off</p>');
  });
});
