/**
 * An OpenAI reasoning item of several summary parts (codex's, pi's) written into OpenCode and resumed
 * by the real OpenCode with an `@ai-sdk/openai` provider on the loopback Responses stand-in. OpenCode
 * resumes with `store: false` and leaves the item ids out, so the AI SDK sends each reasoning part that
 * has encrypted content as an item of its own and leaves the others out (test/agents/openai-agents.test.ts):
 * written in OpenCode's own layout (a part per summary, the encrypted content on the last) it sent the
 * item with its last summary only. Written as one part of all the summaries (kept beside it for reading
 * back), OpenCode sends the item once with every summary's text; read back, the item has its parts again.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import type { Message, Session, ThinkingPart } from '../../src/model/types.js';
import { runOpencode, writeOpencodeOpenAiProvider } from '../helpers/agents.js';
import { runCliOk } from '../helpers/cli.js';
import {
  promptOfRequest,
  type ResponsesItem,
  type ResponsesStandIn,
  startResponsesStandIn,
} from '../helpers/openai-responses-standin.js';
import { messageEntry } from '../helpers/sessions.js';
import '../../src/formats/all.js';

const PROVIDER = 'oai';
const MODEL = 'oai-model';
const SUMMARIES = ['First I look at the request.', 'Then I run the command.', 'Then I answer.'];

let standIn: ResponsesStandIn;
let root: string;
let project: string;
let env: DriverEnv;

beforeAll(async () => {
  standIn = await startResponsesStandIn();
  root = await fs.mkdtemp(join(tmpdir(), 'tb-oc-reasoning-summaries-'));
  project = join(root, 'project');
  await fs.mkdir(project, { recursive: true });
  await writeOpencodeOpenAiProvider(root, PROVIDER, { baseUrl: standIn.baseUrl, model: MODEL });
  env = { home: root, env: {} };
  // OpenCode creates its database on its first run
  await runOpencode({ root, project }, ['session', 'list']);
}, 120_000);
afterAll(async () => {
  await standIn?.close();
  if (root) await fs.rm(root, { recursive: true, force: true });
});

/** A codex turn: reasoning of three summary parts with encrypted content and its item id, then an answer. */
function codexSession(): Session {
  const t = new Date().toISOString();
  const reasoning: ThinkingPart = {
    type: 'thinking',
    thinking: SUMMARIES.join('\n\n'),
    meta: { codexItemId: 'rs_codex_1', summaryParts: SUMMARIES, encryptedContent: 'gAAAA-enc-codex-1' },
  };
  const msg = (id: string, parentId: string | null, message: Message) => messageEntry(id, parentId, t, message);
  return {
    id: 'codex-reasoning',
    source: 'codex',
    project,
    createdAt: t,
    updatedAt: t,
    messageCount: 2,
    entries: [
      msg('u1', null, { role: 'user', parts: [{ type: 'text', text: 'think about it' }] }),
      msg('a1', 'u1', {
        role: 'assistant',
        provider: PROVIDER,
        model: MODEL,
        api: 'openai-responses',
        parts: [reasoning, { type: 'text', text: 'Thought it through.' }],
      }),
    ],
  };
}

describe('a reasoning item of several summary parts, resumed by the real OpenCode', () => {
  it('OpenCode sends it once with the text of every summary; read back, the parts again', async () => {
    const sources = new Sources(env);
    const written = await sources.driver('opencode').writeSession?.(codexSession());
    await sources.close();
    if (!written) throw new Error('nothing written');
    const mark = standIn.responseRequests().length;
    await runOpencode({ root, project }, ['run', '-s', written.id, '-m', `${PROVIDER}/${MODEL}`, 'summaries', 'probe']);
    const req = standIn
      .responseRequests()
      .slice(mark)
      .find((r) => promptOfRequest(r) === 'summaries probe');
    if (!req) throw new Error('OpenCode sent no request ending with the probe');
    const reasoning = req.input.filter((i: ResponsesItem) => i.type === 'reasoning');
    expect(reasoning).toHaveLength(1);
    expect(reasoning[0]?.encrypted_content).toBe('gAAAA-enc-codex-1');
    const sentText = ((reasoning[0]?.summary ?? []) as { text: string }[]).map((s) => s.text).join('\n\n');
    for (const s of SUMMARIES) expect(sentText).toContain(s);

    // threadbase's ai-sdk context of the OpenCode session: the one reasoning part OpenCode sent
    const ctx = JSON.parse(await runCliOk(env, ['context', written.id, '--format', 'ai-sdk'])) as {
      messages: { role: string; content: string | { type: string; text?: string }[] }[];
    };
    const reasoningParts = ctx.messages.flatMap((m) =>
      typeof m.content === 'string' ? [] : m.content.filter((c) => c.type === 'reasoning').map((c) => c.text),
    );
    expect(reasoningParts).toEqual([sentText]);

    // read back: the item's summary parts, its encrypted content and id
    const reader = new Sources(env);
    const back = await reader.driver('opencode').getSession(written.id);
    await reader.close();
    const thinking = back?.entries.flatMap((e) =>
      e.kind === 'message' ? e.message.parts.filter((p): p is ThinkingPart => p.type === 'thinking') : [],
    );
    expect(thinking?.[0]?.meta).toMatchObject({ summaryParts: SUMMARIES, encryptedContent: 'gAAAA-enc-codex-1' });
  }, 150_000);
});
