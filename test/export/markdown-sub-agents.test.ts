/**
 * The Markdown export reads as the HTML page does: a sub-agent's session folded (<details>) right
 * under the call that ran it, its turns a heading level down (an older Claude Code session's in-file
 * side chain too; one no call ran, folded after the turns), and what an agent wrote into the
 * conversation itself (codex's developer instructions, Qwen Code's notification, Gemini CLI's session
 * context, Kilo's synthetic text) folded under the name the page gives it, not shown as if the user
 * had typed it. Before, the Markdown had none of the sub-agents' turns and every such text open.
 * On the sessions the real agents wrote, exported through the CLI from a temp home.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionToMarkdown } from '../../src/export/index.js';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import type { Session } from '../../src/model/types.js';
import { runCliOk } from '../helpers/cli.js';
import { type FixtureHome, fixtureHome, INJECTED_TEXT_CASES, SUB_AGENT_RUNS } from '../helpers/fixture-homes.js';

/** SUB_AGENT_RUNS and Claude Code's older in-file sub-agent */
const RUNS = [
  ...SUB_AGENT_RUNS,
  {
    agent: 'claude (older)',
    parent: '11111111-1111-4111-8111-111111111111',
    call: 'Task',
    child: 'abcd1234',
    prompt: 'count the cats',
    // the sub-agent's whole answer: "3"
    answer: '(claude-sonnet-4-5-20250929)\n\n3\n',
  },
] as const;

/** The fold that opens with `<details><summary>` + `summary`…, nested folds inside it included; undefined when none. */
function fold(md: string, summary: string): { at: number; text: string } | undefined {
  const at = md.indexOf(`<details><summary>${summary}`);
  if (at < 0) return undefined;
  let depth = 0;
  for (const m of md.slice(at).matchAll(/<details>|<\/details>/g)) {
    depth += m[0] === '<details>' ? 1 : -1;
    if (depth === 0) return { at, text: md.slice(at, at + (m.index ?? 0) + m[0].length) };
  }
  return undefined;
}

describe('sub-agents and folded text in the Markdown export', () => {
  let fx: FixtureHome;
  let sources: Sources;

  beforeAll(async () => {
    fx = await fixtureHome({
      prefix: 'threadbase-export-md-',
      fixtures: ['qwen', 'cline', 'codex', 'claude', 'claudeOlder', 'gemini', 'kilo'],
    });
    sources = new Sources({ home: fx.home, env: fx.env.env });
  });

  afterAll(async () => {
    await sources?.close();
    if (fx) await rm(fx.home, { recursive: true, force: true });
  });

  const exported = (id: string, extra: string[]) => runCliOk(fx.env, ['export', id, '--format', 'md', ...extra]);

  for (const run of RUNS) {
    it(`${run.agent}: the sub-agent's turns folded under the call that ran it`, async () => {
      for (const extra of [['--no-index'], []]) {
        const md = await exported(run.parent, extra);
        const sub = fold(md, 'Sub-agent session: ');
        expect(sub, md).toBeDefined();
        const { at, text } = sub as { at: number; text: string };
        expect(text.slice(0, text.indexOf('</summary>'))).toContain(` · ${run.child} · `);
        // right after the call: its input, then the fold
        const call = md.lastIndexOf(`**tool call** \`${run.call}\``, at);
        expect(call).toBeGreaterThan(0);
        expect(md.slice(call, at)).not.toMatch(/^#{2,} /m);
        // the sub-agent's turns, a heading level down, inside the fold
        expect(text).toMatch(new RegExp(`^### user\\n\\n[^]*${run.prompt}`, 'm'));
        expect(text).toMatch(/^### assistant/m);
        // its tags as text (markdownText)
        expect(text).toContain(run.answer.replaceAll('<', '&lt;'));
      }
    });
  }

  it('a session that ran no sub-agent has no such fold', async () => {
    for (const run of RUNS) expect(await exported(run.child, ['--no-index'])).not.toContain('Sub-agent session');
  });

  it('claude (older): an in-file side chain no call ran, folded after the turns', async () => {
    const md = await exported('11111111-1111-4111-8111-111111111111', ['--no-index']);
    const chain = fold(md, 'Sub-agent session (side chain, no call on this path ran it): sc1');
    expect(chain).toBeDefined();
    const { at, text } = chain as { at: number; text: string };
    expect(text).toMatch(/^### user\n\nold in-file side chain$/m);
    expect(text).toMatch(/^### assistant \(claude-sonnet-4-5-20250929\)\n\nside answer$/m);
    // after the last turn of the path, and only there
    expect(at).toBeGreaterThan(md.indexOf('\ndone\n'));
    expect(md.split('side answer')).toHaveLength(2);
  });

  const INJECTED = [
    ...INJECTED_TEXT_CASES,
    {
      agent: 'kilo',
      id: 'ses_de960d959ffeUnT4kXIY6RPwqO',
      folded: [
        ['added by the agent', 'Called the Read tool'],
        ['added by the agent', 'Image read successfully'],
      ],
      prompt: 'describe the image',
    },
  ] as const;

  for (const c of INJECTED) {
    it(`${c.agent}: what the agent wrote itself folded under its name, the user's own prompt open`, async () => {
      const md = sessionToMarkdown((await sources.driver(c.agent).getSession(c.id)) as Session);
      let from = 0;
      for (const [label, opening] of c.folded) {
        const f = fold(md.slice(from), `${label} · `);
        expect(f, `${label} in\n${md.slice(from, from + 2000)}`).toBeDefined();
        const { at, text } = f as { at: number; text: string };
        expect(text).toMatch(new RegExp(`^<details><summary>${label} · [\\d,]+ characters</summary>\\n\\n`));
        // its tags as text (markdownText): a renderer would swallow them
        expect(text).toContain(opening.replaceAll('<', '&lt;'));
        from += at + text.length;
      }
      // the user's prompt is open: on a line of its own, in no fold
      const prompt = md.search(new RegExp(`^${c.prompt}$`, 'm'));
      expect(prompt).toBeGreaterThan(0);
      const before = md.slice(0, prompt);
      expect(before.split('<details>').length).toBe(before.split('</details>').length);
    });
  }
});
