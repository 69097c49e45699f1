/**
 * OpenAI reasoning between pi, OpenCode and Codex, with the real agents against the loopback OpenAI
 * Responses stand-in (test/helpers/openai-responses-standin.ts): pi with a models.json provider of
 * `api: "openai-responses"`, OpenCode with a provider of `npm: "@ai-sdk/openai"`, codex with a
 * `wire_api = "responses"` model provider, all three named `oai` with the model `oai-model` (so that a
 * converted session is the resuming agent's own model, whose reasoning it sends back).
 *
 * Each agent records a session with reasoning of several summary parts and encrypted content, a real
 * bash call and a following turn; then:
 * - threadbase's context equals what the agent sends on a further resume (pi: our `openai-responses`
 *   context; OpenCode: our `ai-sdk` context as OpenCode lowers it, aiSdkResponsesInput);
 * - converted into codex, codex resumes it sending our context, each reasoning item once with its
 *   encrypted content and every summary part, calls and outputs paired;
 * - a session codex recorded, converted into pi and OpenCode, is resumed with its reasoning items.
 *
 * What the agents do (observed here): pi keeps the reasoning item as the API gave it (thinkingSignature)
 * and sends it back whole, id included. OpenCode 1.18.33 keeps a reasoning part per summary part, each
 * with the item id, the encrypted content on the last part only; resuming, it sends with `store: false`
 * and no item ids, so each part with encrypted content is an item of its own and the parts before it are
 * not sent: an item goes back once, with its last summary part only.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { AiModelMessage } from '../../src/convert/ai-sdk.js';
import { Sources } from '../../src/formats/registry.js';
import type { Entry, Message, Session } from '../../src/model/types.js';
import { runCodex, runOpencode, runPi } from '../helpers/agents.js';
import { runCliOk } from '../helpers/cli.js';
import { OPENAI_MODEL as MODEL, openAiAgentsHomeForFile, OPENAI_PROVIDER as PROVIDER } from '../helpers/openai-agents-home.js';
import {
  itemText,
  promptOfRequest,
  type ResponsesItem,
  type ResponsesRequest,
  type ResponsesRule,
  reasoningShellRule,
  requestEndingWith,
} from '../helpers/openai-responses-standin.js';
import { messageEntry } from '../helpers/sessions.js';
import '../../src/formats/all.js';

let thoughts = 0;
/** `THINK: …`: reasoning of three summary parts with encrypted content and a text answer. */
const thinkRule: ResponsesRule = (req) => {
  if (!/THINK:/.test(promptOfRequest(req) ?? '')) return undefined;
  return {
    reasoning: ['Part one of the thought.', 'Part two of the thought.', 'Part three.'],
    encryptedReasoning: `gAAAA-enc-${++thoughts}-think`,
    text: 'Thought it through.',
  };
};

/** `RUN: <cmd>` answered with reasoning of two summary parts, then a call of the shell tool offered; `THINK: …` by thinkRule. */
const home = openAiAgentsHomeForFile({
  prefix: 'tb-openai-agents-',
  rules: [reasoningShellRule(['First I look at the request.', 'Then I run the command.']), thinkRule],
  opencode: true,
});

let cliQueue: Promise<unknown> = Promise.resolve();
/**
 * The CLI, in-process, one command at a time: it captures process.stdout while it runs, and the
 * recordings below run at the same time.
 */
function cli(...args: string[]): Promise<string> {
  const run = cliQueue.then(() => runCliOk(home.env, args));
  cliQueue = run.catch(() => undefined);
  return run;
}

/** The request the stand-in received from index `mark` on that ends with the user text `prompt` (requestEndingWith). */
function requestFor(mark: number, prompt: string): ResponsesRequest {
  return requestEndingWith(home.standIn, mark, prompt);
}

/** Items the agents add on every request (system or developer instructions, codex's environment context), not history. */
function isInjected(item: ResponsesItem): boolean {
  if (item.role === 'developer' || item.role === 'system') return true;
  return item.role === 'user' && /^<(environment_context|user_instructions)>/.test(itemText(item).trimStart());
}

/**
 * Input items in one comparable shape: without the instructions each agent adds, and without what
 * the API treats alike: item ids and statuses (pi and codex send the recorded ones, the AI SDK none
 * with store: false), a message's `type` (pi leaves it out), a string content (one text item), empty
 * annotations, a reasoning item's null `content`, an assistant text's `phase`.
 */
function wire(items: readonly ResponsesItem[]): ResponsesItem[] {
  return items
    .filter((it) => !isInjected(it))
    .map((it) => {
      const { id: _id, status: _status, phase: _phase, ...rest } = it;
      if (rest.role !== undefined && rest.type === undefined) rest.type = 'message';
      if (rest.type === 'reasoning' && rest.content == null) delete rest.content;
      if (rest.type === 'message') {
        const kind = rest.role === 'assistant' ? 'output_text' : 'input_text';
        const content =
          typeof rest.content === 'string' ? [{ type: kind, text: rest.content }] : (rest.content as ResponsesItem[]);
        rest.content = content.map((c) => {
          const { annotations, ...x } = c as ResponsesItem & { annotations?: unknown[] };
          return annotations?.length ? c : x;
        });
      }
      return rest;
    });
}

/** The history a request carries: its input without the injected items and the new prompt at its end. */
function history(req: ResponsesRequest): ResponsesItem[] {
  return wire(req.input.slice(0, -1));
}

async function responsesContext(id: string): Promise<ResponsesItem[]> {
  const ctx = JSON.parse(await cli('context', id, '--format', 'openai-responses')) as { input: ResponsesItem[] };
  return wire(ctx.input);
}

/**
 * The Responses input OpenCode builds from AI SDK messages for an `@ai-sdk/openai` provider, as
 * observed here: OpenCode resumes with `store: false` and leaves the item ids out of the reasoning
 * parts' provider options, so @ai-sdk/openai sends each reasoning part that has encrypted content as
 * an item of its own (its text the one summary part, no id) and leaves out a part without (OpenCode
 * records the encrypted content on an item's last summary part only); text parts are assistant
 * messages, tool calls function_calls, results function_call_outputs.
 */
function aiSdkResponsesInput(messages: readonly AiModelMessage[]): ResponsesItem[] {
  const out: ResponsesItem[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const content = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
    if (m.role === 'user') {
      out.push({
        type: 'message',
        role: 'user',
        content: content.map((c) => (c.type === 'text' ? { type: 'input_text', text: c.text } : { type: 'unexpected', c })),
      });
    } else if (m.role === 'assistant') {
      for (const c of content) {
        if (c.type === 'text') out.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: c.text }] });
        else if (c.type === 'reasoning') {
          const encrypted = (c.providerOptions?.openai as { reasoningEncryptedContent?: unknown } | undefined)
            ?.reasoningEncryptedContent;
          if (typeof encrypted !== 'string') continue;
          out.push({
            type: 'reasoning',
            summary: c.text ? [{ type: 'summary_text', text: c.text }] : [],
            encrypted_content: encrypted,
          });
        } else if (c.type === 'tool-call')
          out.push({ type: 'function_call', call_id: c.toolCallId, name: c.toolName, arguments: JSON.stringify(c.input) });
      }
    } else {
      for (const r of content) {
        if (r.type !== 'tool-result') continue;
        const o = r.output;
        const output = o.type === 'text' || o.type === 'error-text' ? o.value : JSON.stringify(o.value);
        out.push({ type: 'function_call_output', call_id: r.toolCallId, output });
      }
    }
  }
  return out;
}

async function aiSdkContext(id: string): Promise<ResponsesItem[]> {
  const ctx = JSON.parse(await cli('context', id, '--format', 'ai-sdk')) as { messages: AiModelMessage[] };
  return wire(aiSdkResponsesInput(ctx.messages));
}

const reasoningItems = (items: readonly ResponsesItem[]) => items.filter((i) => i.type === 'reasoning');
const summaries = (item: ResponsesItem | undefined) => (item?.summary as { text: string }[] | undefined)?.map((s) => s.text);

/** `threadbase convert <id> --to <agent> --json` */
async function convert(id: string, to: string): Promise<{ id: string; path: string; warnings?: string[] }> {
  return JSON.parse(await cli('convert', id, '--to', to, '--json'));
}

function pi(args: string[]): Promise<string> {
  return runPi(home, args, { provider: PROVIDER, model: MODEL });
}

function opencode(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return runOpencode(home, args);
}

function codex(args: string[]): Promise<string> {
  return runCodex({ cwd: home.project, home: home.root, codexHome: home.codexHome }, args);
}

async function newestSession(source: string, except: string[] = []): Promise<string> {
  const list = JSON.parse(await cli('sessions', '--source', source, '--json')) as { id: string; updatedAt: string }[];
  const id = list.filter((s) => !except.includes(s.id)).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0]?.id;
  if (!id) throw new Error(`no ${source} session`);
  return id;
}

/**
 * codex resumes rollout `id` with `prompt`; returns the history it sent (its instructions, developer
 * messages and environment context left out) and the history threadbase's context renders.
 */
async function codexResume(id: string, prompt: string): Promise<{ sent: ResponsesItem[]; ours: ResponsesItem[] }> {
  const ours = await responsesContext(id);
  const mark = home.standIn.responseRequests().length;
  await codex(['resume', id, prompt]);
  return { sent: history(requestFor(mark, prompt)), ours };
}

/** What every recorded session holds: a tool call after reasoning of two parts, a turn with reasoning of three. */
function expectRecordedReasoning(items: readonly ResponsesItem[]): void {
  const r = reasoningItems(items);
  expect(r.map((i) => i.encrypted_content)).toEqual([expect.stringMatching(/-run$/), expect.stringMatching(/-think$/)]);
  expect(items.filter((i) => i.type === 'function_call')).toHaveLength(1);
  expect(items.filter((i) => i.type === 'function_call_output')).toHaveLength(1);
}

interface Recorded {
  id: string;
  /** threadbase's context of the session before the probe */
  ours: ResponsesItem[];
  /** the history the agent sent with the probe */
  sent: ResponsesItem[];
}

/**
 * pi records a session (a tool call after reasoning of two parts, then a turn with reasoning of three)
 * and resumes it with a probe. pi continues (`-c`) its newest session of the project, so no other pi
 * session is written while it records.
 */
async function recordPi(): Promise<Recorded> {
  await pi(['-p', 'RUN: echo pi-tool']);
  const id = await newestSession('pi');
  await pi(['-c', '-p', 'THINK: and now?']);
  const ours = await responsesContext(id);
  const mark = home.standIn.responseRequests().length;
  await pi(['-c', '-p', 'pi probe']);
  return { id, ours, sent: history(requestFor(mark, 'pi probe')) };
}

/** OpenCode records the same and resumes it with a probe. */
async function recordOpencode(): Promise<Recorded> {
  const before = JSON.parse(await cli('sessions', '--source', 'opencode', '--json')) as { id: string }[];
  await opencode(['run', '-m', `${PROVIDER}/${MODEL}`, 'RUN:', 'echo', 'oc-tool']);
  const id = await newestSession(
    'opencode',
    before.map((s) => s.id),
  );
  await opencode(['run', '-s', id, '-m', `${PROVIDER}/${MODEL}`, 'THINK:', 'and', 'now?']);
  const ours = await aiSdkContext(id);
  const mark = home.standIn.responseRequests().length;
  await opencode(['run', '-s', id, '-m', `${PROVIDER}/${MODEL}`, 'oc', 'probe']);
  return { id, ours, sent: history(requestFor(mark, 'oc probe')) };
}

/** codex records the same: its session id and threadbase's Responses context of it. */
async function recordCodex(): Promise<{ id: string; recorded: ResponsesItem[] }> {
  await codex(['RUN: echo codex-tool']);
  const id = await newestSession('codex');
  await codex(['resume', id, 'THINK: and now?']);
  return { id, recorded: await responsesContext(id) };
}

/**
 * The three agents record at the same time (each finds its session as its agent's newest), before any
 * conversion writes a session into one of them; each test awaits the recording it starts from.
 */
let recordings: { pi: Promise<Recorded>; opencode: Promise<Recorded>; codex: ReturnType<typeof recordCodex> };
beforeAll(() => {
  recordings = { pi: recordPi(), opencode: recordOpencode(), codex: recordCodex() };
  // a failed recording fails the tests that await it
  for (const p of Object.values(recordings)) p.catch(() => undefined);
});

describe('pi with an OpenAI Responses provider', () => {
  let id = '';

  it("records reasoning of several summary parts with encrypted content; threadbase's context is what pi sends on resume", async () => {
    const recorded = await recordings.pi;
    id = recorded.id;
    const { sent, ours } = recorded;
    expect(sent).toEqual(ours);
    expectRecordedReasoning(sent);
    // pi sends each reasoning item whole, as the API gave it
    expect(reasoningItems(sent).map(summaries)).toEqual([
      ['First I look at the request.', 'Then I run the command.'],
      ['Part one of the thought.', 'Part two of the thought.', 'Part three.'],
    ]);
  });

  it('converted to codex: codex resumes it sending our context, each reasoning item once with its encrypted content', async () => {
    await recordings.codex; // codex's recording finds its session as the newest rollout: none written before it is done
    const written = await convert(id, 'codex');
    const { sent, ours } = await codexResume(written.id, 'codex probe of pi');
    expect(sent).toEqual(ours);
    expect(sent).toEqual(await responsesContext(id));
    expectRecordedReasoning(sent);
  });
});

describe('OpenCode with an OpenAI Responses provider (@ai-sdk/openai)', () => {
  let id = '';

  it("records reasoning of several summary parts; threadbase's context is what OpenCode sends on resume", async () => {
    const recorded = await recordings.opencode;
    id = recorded.id;
    const { sent, ours } = recorded;
    expect(sent).toEqual(ours);
    expectRecordedReasoning(sent);
    // OpenCode records a part per summary part, the encrypted content on an item's last part, and sends that part only
    const session = (await new Sources(home.env).driver('opencode').getSession(id)) as Session;
    const parts = session.entries.flatMap((e) =>
      e.kind === 'message' ? e.message.parts.flatMap((p) => (p.type === 'thinking' ? [p] : [])) : [],
    );
    expect(parts.map((p) => [p.thinking, p.meta?.encryptedContent !== undefined])).toEqual([
      ['First I look at the request.', false],
      ['Then I run the command.', true],
      ['Part one of the thought.', false],
      ['Part two of the thought.', false],
      ['Part three.', true],
    ]);
    expect(reasoningItems(sent).map(summaries)).toEqual([['Then I run the command.'], ['Part three.']]);
  });

  it('converted to codex: codex resumes it sending our context, each reasoning item once with its encrypted content', async () => {
    await recordings.codex; // codex's recording finds its session as the newest rollout: none written before it is done
    const written = await convert(id, 'codex');
    const { sent, ours } = await codexResume(written.id, 'codex probe of opencode');
    expect(sent).toEqual(ours);
    expectRecordedReasoning(sent);
    expect(reasoningItems(sent).map(summaries)).toEqual([
      ['First I look at the request.', 'Then I run the command.'],
      ['Part one of the thought.', 'Part two of the thought.', 'Part three.'],
    ]);
  });
});

describe('what OpenCode sends of OpenAI reasoning', () => {
  it('each reasoning part with encrypted content as an item of its own, with or without an item id, and no ids', async () => {
    const t = new Date().toISOString();
    const msg = (id: string, parentId: string | null, message: Message): Entry => messageEntry(id, parentId, t, message);
    const written = await new Sources(home.env).driver('opencode').writeSession?.({
      id: 'hand-made',
      source: 'codex',
      project: home.project,
      createdAt: t,
      updatedAt: t,
      messageCount: 2,
      entries: [
        msg('u1', null, { role: 'user', parts: [{ type: 'text', text: 'hello' }] }),
        msg('a1', 'u1', {
          role: 'assistant',
          provider: PROVIDER,
          model: MODEL,
          parts: [
            { type: 'thinking', thinking: 'no id', meta: { encryptedContent: 'enc-no-id' } },
            { type: 'thinking', thinking: 'with id', meta: { encryptedContent: 'enc-id', codexItemId: 'rs_hand' } },
            { type: 'text', text: 'answer' },
          ],
        }),
      ],
    });
    const mark = home.standIn.responseRequests().length;
    await opencode(['run', '-s', written?.id ?? '', '-m', `${PROVIDER}/${MODEL}`, 'hand', 'probe']);
    const sent = requestFor(mark, 'hand probe').input;
    expect(reasoningItems(sent)).toEqual([
      { type: 'reasoning', encrypted_content: 'enc-no-id', summary: [{ type: 'summary_text', text: 'no id' }] },
      { type: 'reasoning', encrypted_content: 'enc-id', summary: [{ type: 'summary_text', text: 'with id' }] },
    ]);
  });
});

describe('a session codex recorded, resumed by pi and OpenCode', () => {
  let id = '';
  let recorded: ResponsesItem[] = [];

  beforeAll(async () => {
    ({ id, recorded } = await recordings.codex);
    expectRecordedReasoning(recorded);
  });

  it('converted to pi: pi sends the reasoning items back whole, with their encrypted content and ids', async () => {
    const written = await convert(id, 'pi');
    const mark = home.standIn.responseRequests().length;
    await pi(['--session', written.path, '-p', 'pi probe of codex']);
    const req = requestFor(mark, 'pi probe of codex');
    expect(history(req)).toEqual(recorded);
    // with the ids codex recorded them under, as pi sends its own
    const session = (await new Sources(home.env).driver('codex').getSession(id)) as Session;
    const ids = session.entries.flatMap((e) =>
      e.kind === 'message' ? e.message.parts.flatMap((p) => (p.type === 'thinking' ? [p.meta?.codexItemId] : [])) : [],
    );
    expect(ids).toEqual([expect.stringMatching(/^rs_/), expect.stringMatching(/^rs_/)]);
    expect(reasoningItems(req.input).map((i) => i.id)).toEqual(ids);
  });

  it('converted to OpenCode: OpenCode sends the reasoning items back with their encrypted content', async () => {
    const written = await convert(id, 'opencode');
    const ours = await aiSdkContext(written.id);
    const mark = home.standIn.responseRequests().length;
    await opencode(['run', '-s', written.id, '-m', `${PROVIDER}/${MODEL}`, 'oc', 'probe', 'of', 'codex']);
    const req = requestFor(mark, 'oc probe of codex');
    expect(history(req)).toEqual(ours);
    // each reasoning item once, with its encrypted content and the text of every summary part: written as
    // one part of all of them (OpenCode sends a part's text as one summary; its own items go back with the
    // last summary part only: test/agents/opencode-reasoning-summaries.test.ts)
    const allSummariesInOne = recorded.map((i) =>
      i.type === 'reasoning' ? { ...i, summary: [{ type: 'summary_text', text: (summaries(i) ?? []).join('\n\n') }] } : i,
    );
    expect(history(req)).toEqual(allSummariesInOne);
  });
});

describe('between pi and OpenCode', () => {
  it("pi's session converted to OpenCode: OpenCode sends each reasoning item once, every summary's text in one", async () => {
    const written = await convert((await recordings.pi).id, 'opencode');
    const ours = await aiSdkContext(written.id);
    const mark = home.standIn.responseRequests().length;
    await opencode(['run', '-s', written.id, '-m', `${PROVIDER}/${MODEL}`, 'oc', 'probe', 'of', 'pi']);
    const sent = history(requestFor(mark, 'oc probe of pi'));
    expect(sent).toEqual(ours);
    expectRecordedReasoning(sent);
    expect(reasoningItems(sent).map(summaries)).toEqual([
      ['First I look at the request.\n\nThen I run the command.'],
      ['Part one of the thought.\n\nPart two of the thought.\n\nPart three.'],
    ]);
  });

  it("OpenCode's session converted to pi: pi sends each reasoning item whole, with its encrypted content and id", async () => {
    const written = await convert((await recordings.opencode).id, 'pi');
    const mark = home.standIn.responseRequests().length;
    await pi(['--session', written.path, '-p', 'pi probe of oc']);
    const req = requestFor(mark, 'pi probe of oc');
    const sent = history(req);
    // our openai-responses context of the OpenCode session: an item's parts as one item
    expect(sent).toEqual(await responsesContext((await recordings.opencode).id));
    expectRecordedReasoning(sent);
    expect(reasoningItems(sent).map(summaries)).toEqual([
      ['First I look at the request.', 'Then I run the command.'],
      ['Part one of the thought.', 'Part two of the thought.', 'Part three.'],
    ]);
    expect(reasoningItems(req.input).map((i) => i.id)).toEqual([expect.stringMatching(/^rs_/), expect.stringMatching(/^rs_/)]);
  });
});
