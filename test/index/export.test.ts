import { describe, expect, it } from 'vitest';
import { sessionToHtml, sessionToMarkdown } from '../../src/export/index.js';
import type { Entry, MessageEntry, Session, Usage } from '../../src/model/types.js';
import { costOf, PRICES, priceOf, usageCostByModel } from '../../src/stores/index-sync/prices.js';
import { sampleSession } from '../conformance/driver-suite.js';

function branched(): Session {
  const s = sampleSession();
  const first = s.entries[1] as Entry;
  s.entries.push({
    kind: 'message',
    id: 'branch-entry-1',
    parentId: first.id,
    timestamp: '2030-01-01T00:00:00.000Z',
    message: { role: 'user', parts: [{ type: 'text', text: 'the other road <b>not bold</b>' }] },
  });
  s.leafId = 'branch-entry-1';
  return s;
}

describe('export renderers', () => {
  it('html shows the current branch, the branch tree, images inline and escapes text', () => {
    const html = sessionToHtml(branched());
    expect(html).toContain('Branch tree: 2 branches');
    expect(html).toContain('the other road &lt;b&gt;not bold&lt;/b&gt;');
    expect(html).not.toContain('<b>not bold</b>');
    expect(html).toMatch(/<img alt="image" src="data:image\/png;base64,iVBOR/);
    // the tool result of the abandoned branch is not on the current path
    expect(html).not.toContain('quokka.txt</pre>');
    expect(html).toContain('Usage:');
  });

  it('a thinking-level change reads as one, not as a change to model "?" (pi writes them apart)', () => {
    const s = sampleSession();
    const last = s.entries.at(-1) as Entry;
    const at = { parentId: last.id, timestamp: last.timestamp };
    s.entries.push(
      { kind: 'model_change', id: 'mc-1', ...at, provider: 'anthropic', model: 'claude-opus-4-5' },
      { kind: 'model_change', id: 'mc-2', ...at, parentId: 'mc-1', thinkingLevel: 'off' },
    );
    s.leafId = 'mc-2';
    const md = sessionToMarkdown(s);
    expect(md).toContain('_model changed to claude-opus-4-5_');
    expect(md).toContain('_thinking level off_');
    const html = sessionToHtml(s);
    expect(html).toContain('<p class="dim">model changed to claude-opus-4-5</p>');
    expect(html).toContain('<p class="dim">thinking level off</p>');
    expect(`${md}${html}`).not.toContain('model changed to ?');
  });

  it('markdown lists facts and the branches', () => {
    const md = sessionToMarkdown(branched());
    expect(md).toMatch(/^# Conformance \d+/);
    expect(md).toContain('## Branches');
    // the responses' own tokens and the advisor request's (claude-opus-5), each under its model
    expect(md).toContain('- tokens: input 430, output 105');
    expect(md).toContain('  - claude-opus-5: input 300, output 40');
    expect(md).not.toContain('no price known');
    // per model: the advisor request is no response of its own, and the response's recorded cost covers it
    const byModel = usageCostByModel(branched().entries, PRICES);
    expect(byModel.map((m) => [m.model, m.responses, m.cost])).toEqual([
      ['claude-sonnet-4-5', 2, expect.closeTo(0.015, 9)],
      ['claude-opus-5', 0, 0],
    ]);
  });

  it('prices what the agent did not record, per model, as `stats` does, and says so', () => {
    const u = (input: number, output: number): Usage => ({ input, output, cacheRead: 1000, cacheWrite: 50, reasoning: 0 });
    let n = 0;
    const reply = (model: string, usage: Usage, extra: Partial<MessageEntry['message']> = {}): MessageEntry => ({
      kind: 'message',
      id: `r${++n}`,
      parentId: n === 1 ? 'q' : `r${n - 1}`,
      timestamp: `2026-01-01T00:00:0${n}.000Z`,
      message: { role: 'assistant', model, usage, parts: [{ type: 'text', text: `answer ${n}` }], ...extra },
    });
    const entries: Entry[] = [
      {
        kind: 'message',
        id: 'q',
        parentId: null,
        timestamp: '2026-01-01T00:00:00.000Z',
        message: { role: 'user', parts: [{ type: 'text', text: 'q' }] },
      },
      // one response split over two records: priced once, on the record that counts
      reply('claude-sonnet-4-5', u(100, 1), { responseId: 'm1' }),
      reply('claude-sonnet-4-5', u(100, 40), { responseId: 'm1' }),
      reply('claude-haiku-4-5', u(300, 20)),
      reply('local-llama', u(5, 5)),
    ];
    const s: Session = { id: 'priced', source: 'claude', createdAt: '', updatedAt: '', messageCount: 5, entries };
    const price = (m: string) => priceOf(PRICES, m) as NonNullable<ReturnType<typeof priceOf>>;
    const sonnet = costOf(price('claude-sonnet-4-5'), u(100, 40));
    const haiku = costOf(price('claude-haiku-4-5'), u(300, 20));
    const html = sessionToHtml(s);
    expect(html).toContain(
      `<td>claude-sonnet-4-5</td><td>100</td><td>40</td><td>1000</td><td>50</td><td>0</td><td>1</td><td>≈$${sonnet.toFixed(4)}</td>`,
    );
    expect(html).toContain(`<td>claude-haiku-4-5</td><td>300</td><td>20</td>`);
    expect(html).toContain(`<td>local-llama</td><td>5</td><td>5</td><td>1000</td><td>50</td><td>0</td><td>1</td><td>—</td>`);
    expect(html).toContain(`<td>total</td><td>405</td><td>65</td>`);
    expect(html).toContain(`≈$${(sonnet + haiku).toFixed(4)}`);
    expect(html).toContain('priced from tokens with the price table');
    expect(html).toContain('Not in the cost (no price known): local-llama');
    const md = sessionToMarkdown(s);
    expect(md).toContain(`; cost ≈$${(sonnet + haiku).toFixed(4)}`);
    expect(md).toContain(
      `  - claude-haiku-4-5: input 300, output 20, cache read 1000, cache write 50; cost ≈$${haiku.toFixed(4)}`,
    );
    // a user's price table is used when given; a recorded cost is shown as recorded
    const own = sessionToMarkdown(s, { prices: { ...PRICES, 'local-llama': { input: 1000, output: 1000 } } });
    expect(own).toContain('  - local-llama: input 5, output 5, cache read 1000, cache write 50; cost ≈$1.0600');
    const recorded: Session = { ...s, entries: [entries[0] as Entry, reply('gpt-5', u(10, 10), { cost: 0.25 })] };
    expect(sessionToMarkdown(recorded)).toContain('; cost $0.2500');
    expect(sessionToMarkdown(recorded)).not.toContain('≈');
  });
});
