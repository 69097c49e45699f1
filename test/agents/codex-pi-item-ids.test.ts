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
import { describe, expect, it } from 'vitest';
import { runCodex, runPi } from '../helpers/agents.js';
import { runCliOk } from '../helpers/cli.js';
import { OPENAI_MODEL as MODEL, openAiAgentsHomeForFile, OPENAI_PROVIDER as PROVIDER } from '../helpers/openai-agents-home.js';
import { type ResponsesItem, reasoningShellRule, requestEndingWith } from '../helpers/openai-responses-standin.js';
import '../../src/formats/all.js';

const home = openAiAgentsHomeForFile({
  prefix: 'tb-codex-pi-items-',
  rules: [reasoningShellRule(['Look.', 'Run it.'])],
  timeout: 60_000,
});

describe('codex → pi, resumed by pi on the Responses API', () => {
  it('pi sends each function_call with the item id codex recorded, after the reasoning item the API pairs it with', async () => {
    const { standIn, env } = home;
    const codexWhere = { cwd: home.project, home: home.root, codexHome: home.codexHome };
    await runCodex(codexWhere, ['RUN: echo codex-tool']);
    const list = JSON.parse(await runCliOk(env, ['sessions', '--source', 'codex', '--json'])) as { id: string }[];
    const id = list[0]?.id as string;
    let mark = standIn.responseRequests().length;
    await runCodex(codexWhere, ['resume', id, 'codex probe']);
    const codexSent = requestEndingWith(standIn, mark, 'codex probe').input;
    const written = JSON.parse(await runCliOk(env, ['convert', id, '--to', 'pi', '--json'])) as { path: string };
    mark = standIn.responseRequests().length;
    await runPi(home, ['--session', written.path, '-p', 'pi probe'], { provider: PROVIDER, model: MODEL });
    const piSent = requestEndingWith(standIn, mark, 'pi probe').input;

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
