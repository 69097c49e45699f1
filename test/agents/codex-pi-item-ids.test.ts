/**
 * A session real codex recorded (reasoning with encrypted content, a shell call, a text turn), converted
 * into pi and resumed by the real pi with an OpenAI Responses provider on the loopback stand-in.
 * codex records each function_call's item id (`fc_…`) and sends it; pi-ai sends a call's item id from
 * pi's `call_id|item_id` tool-call id and the reasoning item's id from its kept item. Written without
 * the call's item id, pi sent the reasoning item (with its id) and then the call without one: the API
 * pairs a reasoning item with the item that followed it by id and refuses such a request ("Item 'rs_…'
 * of type 'reasoning' was provided without its required following item", vercel/ai#7099). The pi writer
 * now carries codex's item id into pi's tool-call id (its result's too), so pi sends what codex sends.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCodex, runPi, writeCodexConfig, writePiProvider } from '../helpers/agents.js';
import { runCliOk } from '../helpers/cli.js';
import {
  promptOfRequest,
  type ResponsesItem,
  type ResponsesRequest,
  type ResponsesRule,
  type ResponsesStandIn,
  shellCall,
  startResponsesStandIn,
} from '../helpers/openai-responses-standin.js';
import '../../src/formats/all.js';

const PROVIDER = 'oai';
const MODEL = 'oai-model';
let standIn: ResponsesStandIn;
let root: string;
let project: string;
let codexHome: string;
let env: DriverEnv;

let n = 0;
const rule: ResponsesRule = (req) => {
  const text = promptOfRequest(req);
  if (text === undefined) return undefined;
  const run = /RUN: (.+)/.exec(text);
  if (run) {
    const call = shellCall(req, (run[1] as string).trim());
    if (!call) return undefined;
    return { reasoning: ['Look.', 'Run it.'], encryptedReasoning: `gAAAA-enc-${++n}-run`, functionCall: call };
  }
  return undefined;
};

beforeAll(async () => {
  standIn = await startResponsesStandIn({ rules: [rule] });
  root = await fs.mkdtemp(join(tmpdir(), 'tb-codex-pi-items-'));
  project = join(root, 'project');
  codexHome = join(root, '.codex');
  await fs.mkdir(project, { recursive: true });
  await writePiProvider(root, PROVIDER, {
    baseUrl: standIn.baseUrl,
    api: 'openai-responses',
    model: { id: MODEL, name: 'OpenAI stand-in', reasoning: true, input: ['text'] },
  });
  await writeCodexConfig(codexHome, standIn.baseUrl, {
    model: MODEL,
    provider: PROVIDER,
    providerName: 'OpenAI stand-in',
    extra: ['model_reasoning_summary = "auto"'],
  });
  env = { home: root, env: { CODEX_HOME: codexHome } };
}, 60_000);
afterAll(async () => {
  await standIn?.close();
  if (root && !process.env.KEEP) await fs.rm(root, { recursive: true, force: true });
});

function requestFor(mark: number, prompt: string): ResponsesRequest {
  const req = standIn
    .responseRequests()
    .slice(mark)
    .find((r) => promptOfRequest(r) === prompt && (r.tools?.length ?? 0) > 0);
  if (!req) throw new Error(`no request ending with ${prompt}`);
  return req;
}

describe('codex → pi, resumed by pi on the Responses API', () => {
  it('pi sends each function_call with the item id codex recorded, after the reasoning item the API pairs it with', async () => {
    await runCodex({ cwd: project, home: root, codexHome }, ['RUN: echo codex-tool']);
    const list = JSON.parse(await runCliOk(env, ['sessions', '--source', 'codex', '--json'])) as { id: string }[];
    const id = list[0]?.id as string;
    let mark = standIn.responseRequests().length;
    await runCodex({ cwd: project, home: root, codexHome }, ['resume', id, 'codex probe']);
    const codexSent = requestFor(mark, 'codex probe').input;
    const written = JSON.parse(await runCliOk(env, ['convert', id, '--to', 'pi', '--json'])) as { path: string };
    mark = standIn.responseRequests().length;
    await runPi({ root, project }, ['--session', written.path, '-p', 'pi probe'], { provider: PROVIDER, model: MODEL });
    const piSent = requestFor(mark, 'pi probe').input;

    // reasoning, its call and the call's output, as each agent sent them
    const turn = (items: ResponsesItem[]) =>
      items
        .filter((i) => i.type === 'reasoning' || i.type === 'function_call' || i.type === 'function_call_output')
        .map((i) => (i.type === 'function_call_output' ? { type: i.type, call_id: i.call_id } : { type: i.type, id: i.id }));
    const codexTurn = turn(codexSent);
    // codex itself sends the call with its item id (the stand-in's fc_…)
    expect(codexTurn).toEqual([
      { type: 'reasoning', id: expect.stringMatching(/^rs_/) },
      { type: 'function_call', id: expect.stringMatching(/^fc_/) },
      { type: 'function_call_output', call_id: expect.stringMatching(/^call_/) },
    ]);
    expect(turn(piSent)).toEqual(codexTurn);
    const call = (items: ResponsesItem[]) => items.find((i) => i.type === 'function_call');
    expect(call(piSent)?.call_id).toBe(call(codexSent)?.call_id);
  }, 200_000);
});
