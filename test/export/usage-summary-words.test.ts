/**
 * The usage line an exported HTML page opens with reads as a person writes it: "over 1 response" (it
 * said "1 responses"), and a token count of thousands with its separators ("12,345 tokens"), as
 * `stats` prints its counts.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sources } from '../../src/formats/registry.js';
import type { DriverEnv } from '../../src/model/driver.js';
import { runCliOk } from '../helpers/cli.js';
import { fixtureHome } from '../helpers/fixture-homes.js';
import { chainSession, textMessage } from '../helpers/sessions.js';
import { usageOf } from '../helpers/usage.js';

let root: string;
let env: DriverEnv;
let oneId: string;
let twoId: string;

beforeAll(async () => {
  ({ home: root } = await fixtureHome({ prefix: 'tb-export-usage-words-' }));
  env = { home: root, env: { HOME: root } };
  const sources = new Sources(env);
  try {
    const claude = sources.driver('claude');
    const project = join(root, 'proj');
    const model = 'claude-sonnet-4-5';
    oneId = (
      await claude.writeSession?.(
        chainSession('one-response', 'threadbase', project, [
          ['u1', textMessage('user', 'a question')],
          ['a1', textMessage('assistant', 'an answer', { model, usage: usageOf(12_000, 345) })],
        ]),
      )
    )?.id as string;
    twoId = (
      await claude.writeSession?.(
        chainSession('two-responses', 'threadbase', project, [
          ['v1', textMessage('user', 'a question')],
          ['b1', textMessage('assistant', 'an answer', { model, usage: usageOf(100, 20) })],
          ['v2', textMessage('user', 'another')],
          ['b2', textMessage('assistant', 'another answer', { model, usage: usageOf(100, 20) })],
        ]),
      )
    )?.id as string;
  } finally {
    await sources.close();
  }
});

afterAll(() => rm(root, { recursive: true, force: true }));

const usageSummary = (html: string) => /<details class="usage"><summary>([^<]*)<\/summary>/.exec(html)?.[1];

describe('export html: the usage line', () => {
  it('says "1 response" and writes thousands with separators', async () => {
    const html = await runCliOk(env, ['export', oneId, '--no-index']);
    expect(usageSummary(html)).toMatch(/^Usage: 12,345 tokens, ≈\$[0-9.]+ over 1 response$/);
  });

  it('says "2 responses"', async () => {
    const html = await runCliOk(env, ['export', twoId, '--no-index']);
    expect(usageSummary(html)).toMatch(/^Usage: 240 tokens, ≈\$[0-9.]+ over 2 responses$/);
  });
});
