/**
 * An image the assistant made (codex's image generation) carried into the real Claude Code: the
 * Messages API takes images only in user turns, so a resumed session that sent it as an image block
 * of an assistant message would be refused. A codex session (written by threadbase's codex writer: a
 * prompt with the user's own image, then an image_generation_call and the reply's text) is converted
 * with `threadbase convert --to claude` into the home, and the real `claude` resumes it against the
 * loopback Anthropic stand-in. What it sent: no image block in any assistant message, the note in
 * the image's place, the user's image still in the user's turn, and the whole conversation as
 * threadbase's Claude Code context says it sends it. After Claude Code appended its turn to the
 * transcript, `convert --to codex` gives codex the image again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextToAnthropic } from '../../src/convert/anthropic.js';
import { Sources } from '../../src/formats/registry.js';
import { assistantImageNote } from '../../src/formats/shared/assistant-images.js';
import type { ImagePart, Session } from '../../src/model/types.js';
import { type AgentHome, setupAgentHome } from '../helpers/agents.js';
import { type Block, comparable, type Msg } from '../helpers/claude-requests.js';
import { convertWith, readSession, resumeInTarget, type Written } from '../helpers/conversions.js';
import { chainSession, ONE_PIXEL_PNG } from '../helpers/sessions.js';
import '../../src/formats/all.js';

/** The image codex's image generation made, as codex's reader gives it. */
const MADE: ImagePart = {
  type: 'image',
  mediaType: 'image/png',
  data: ONE_PIXEL_PNG,
  meta: { codexImageGeneration: true, codexItemId: 'ig_standin_1', status: 'completed', revisedPrompt: 'a red dot' },
};
/** The user's own image, in their prompt. */
const USERS: ImagePart = { type: 'image', mediaType: 'image/png', data: ONE_PIXEL_PNG };
const PROMPT = 'Draw a red dot like this one.';
const REPLY = 'Here is the red dot.';
const PROBE = 'probe assistant image in claude';

let home: AgentHome;
let codexId = '';
let written: Written;
/** what Claude Code sent when it resumed the written session */
let sent: Msg[] = [];
/** threadbase's Claude Code context of the written session, before Claude Code appended to it */
let ours: Msg[] = [];

const imagesOf = (s: Session, role: string): ImagePart[] =>
  s.entries.flatMap((e) =>
    e.kind === 'message' && e.message.role === role ? e.message.parts.filter((p): p is ImagePart => p.type === 'image') : [],
  );
const blocksOf = (m: Msg): Block[] => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content);

beforeAll(async () => {
  home = await setupAgentHome();
  const session = chainSession('codex-made-image', 'codex', home.project, [
    ['u1', { role: 'user', parts: [USERS, { type: 'text', text: PROMPT }] }],
    ['a1', { role: 'assistant', model: 'gpt-5.4', provider: 'openai', parts: [MADE, { type: 'text', text: REPLY }] }],
  ]);
  const sources = new Sources(home.env);
  try {
    const codex = sources.driver('codex');
    if (!codex.writeSession) throw new Error('the codex driver writes no sessions');
    codexId = (await codex.writeSession(session)).id;
    written = await convertWith(home, codexId, 'codex', 'claude');
    ours = contextToAnthropic(await sources.driver('claude').getContext(written.id)).messages as Msg[];
  } finally {
    await sources.close();
  }
  sent = await resumeInTarget(home, 'claude', written, PROBE);
}, 300_000);

afterAll(async () => {
  await home?.close();
});

describe("an image codex's assistant made, resumed by the real Claude Code", () => {
  it('the codex session holds the image the assistant made and the user image', async () => {
    const codex = await readSession(home, 'codex', codexId);
    expect(imagesOf(codex, 'assistant').map((p) => p.data)).toEqual([ONE_PIXEL_PNG]);
    expect(imagesOf(codex, 'user').map((p) => p.data)).toEqual([ONE_PIXEL_PNG]);
    expect(written.warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(/images the assistant made have no place in Claude Code's assistant/)]),
    );
  });

  it('Claude Code sends no image block in any assistant message, the note in its place, the user image in its turn', () => {
    const assistant = sent.filter((m) => m.role === 'assistant').flatMap(blocksOf);
    expect(assistant.filter((b) => b.type === 'image')).toEqual([]);
    // nothing threadbase keeps inside a block, which the API would refuse
    expect(assistant.filter((b) => 'threadbase' in b)).toEqual([]);
    const texts = assistant.flatMap((b) => (b.type === 'text' ? [b.text] : []));
    expect(texts).toContain(assistantImageNote(MADE));
    expect(texts).toContain(REPLY);
    const userImages = sent.filter((m) => m.role === 'user').flatMap((m) => blocksOf(m).filter((b) => b.type === 'image'));
    expect(userImages).toMatchObject([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: ONE_PIXEL_PNG } },
    ]);
  });

  it("what it sent before the probe is threadbase's Claude Code context of the written session", () => {
    expect(ours.flatMap(blocksOf).some((b) => b.type === 'text' && b.text === assistantImageNote(MADE))).toBe(true);
    expect(comparable(sent, PROBE)).toEqual(comparable(ours));
  });

  it('after Claude Code appended its turn, convert --to codex gives codex the image again', async () => {
    const claude = await readSession(home, 'claude', written.id);
    expect(imagesOf(claude, 'assistant')).toEqual([MADE]);
    const back = await convertWith(home, written.id, 'claude', 'codex');
    const again = await readSession(home, 'codex', back.id);
    expect(imagesOf(again, 'assistant').map((p) => p.data)).toEqual([ONE_PIXEL_PNG]);
  });
});
