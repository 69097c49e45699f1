/** The real Continue CLI (`cn`, @continuedev/cli 1.5.47) run offline on the loopback Anthropic stand-in. */
import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { anthropicRequestItems, contextItems } from './agent-fixtures.js';
import { type AgentHome, runBinary } from './agents.js';
import type { AnthropicRequest } from './anthropic-standin.js';
import { readContext, requestEndingWithProbe } from './conversions.js';

export const CN_BIN = resolve('node_modules/.bin/cn');

/** Where the config sends cn's requests on the stand-in (its `apiBase`); the Anthropic adapter posts to `messages` under it. */
export const CN_API_PATH = '/v1/';

/** Continue's config in the home: one Anthropic model at the stand-in. */
export async function writeContinueConfig(h: AgentHome): Promise<void> {
  await fs.mkdir(join(h.root, '.continue'), { recursive: true });
  await fs.writeFile(
    join(h.root, '.continue', 'config.yaml'),
    [
      'name: standin',
      'version: 1.0.0',
      'schema: v1',
      'models:',
      '  - name: Stand-in',
      '    provider: anthropic',
      '    model: claude-standin',
      '    apiKey: offline',
      `    apiBase: ${h.standIn.url}${CN_API_PATH}`,
      '    roles: [chat]',
      '',
    ].join('\n'),
  );
}

/** The environment cn runs with: the home's HOME, node_modules/.bin on PATH, no colours. */
export function cnEnv(h: AgentHome): Record<string, string> {
  return { PATH: `${resolve('node_modules/.bin')}:${process.env.PATH ?? ''}`, HOME: h.root, NO_COLOR: '1', TERM: 'dumb' };
}

/** `cn -p <args>` in `cwd` (the home's project); its output. */
export async function runCn(h: AgentHome, args: string[], cwd = h.project): Promise<string> {
  const r = await runBinary(process.execPath, [CN_BIN, '-p', ...args], cwd, cnEnv(h));
  return r.stdout + r.stderr;
}

/**
 * The request Continue sent whose last user text is `probe`, checked to have come where the config sends
 * cn (the stand-in answers any path ending in `/messages`, so a wrong `apiBase` would pass unseen).
 */
export function requestEndingWith(h: AgentHome, probe: string): AnthropicRequest {
  const req = requestEndingWithProbe(h, probe, 'cn');
  expect(h.standIn.requests.find((r) => r.body === req)?.path).toBe(`${CN_API_PATH}messages`);
  return req;
}

/** A session file of a folder of test/fixtures/continue put into the home's Continue sessions (sessions.json left as it is). */
export async function placeContinueFixture(h: AgentHome, fixture: string, id: string): Promise<void> {
  await fs.mkdir(join(h.root, '.continue', 'sessions'), { recursive: true });
  const from = resolve('test/fixtures/continue', fixture, '.continue', 'sessions', `${id}.json`);
  await fs.copyFile(from, join(h.root, '.continue', 'sessions', `${id}.json`));
}

/** `cn -p --auto --fork <id> <probe>`: what it sent before the probe, and threadbase's context of the session. */
export async function forkedByCn(h: AgentHome, id: string, probe: string): Promise<{ sent: string[]; ours: string[] }> {
  const ours = contextItems(await readContext(h, 'continue', id), { trimResults: true });
  await runCn(h, ['--auto', '--fork', id, probe]);
  const sent = anthropicRequestItems(requestEndingWith(h, probe).messages, { trimResults: true });
  expect(sent.at(-1)).toBe(`user:${probe}`);
  return { sent: sent.slice(0, -1), ours };
}
