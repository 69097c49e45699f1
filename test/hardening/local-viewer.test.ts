/**
 * `threadbase ui` without a key serves this machine's sessions on a local port and can write into
 * the agents' stores ("Continue in…"). A web page elsewhere must not use it: a cross-origin
 * request (CSRF, e.g. a form posting text/plain) is refused, and so is a request whose Host is a
 * domain name other than localhost (DNS rebinding), while the viewer's own requests work.
 */
import { promises as fs } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/formats/all.js';
import { Sources } from '../../src/formats/registry.js';
import { AgentFilesDriver } from '../../src/server/web/agents-driver.js';
import { createWebApp } from '../../src/server/web/index.js';
import { AGENTS, type FixtureHome, fixtureHome } from '../helpers/fixture-homes.js';
import { recordFigures } from './stores.js';

let h: FixtureHome;
let sources: Sources;
let app: ReturnType<typeof createWebApp>;
const PI = '01a204ad-e570-7374-8cfa-3a3511154668';
let refused = 0;

beforeAll(async () => {
  h = await fixtureHome({ agents: AGENTS, prefix: 'tb-hard-' });
  sources = new Sources(h.env);
  app = createWebApp({ driver: new AgentFilesDriver(sources), targets: sources });
});
afterAll(async () => {
  await recordFigures('local-viewer', { refused });
  await sources.close();
  await fs.rm(h.home, { recursive: true, force: true });
});

const claudeCount = async () => (await new Sources(h.env).driver('claude').listSessions()).length;

describe('the local viewer without a key', () => {
  it("serves its own page's requests (same origin, loopback host)", async () => {
    const list = await app.request('http://127.0.0.1:4517/api/v1/web/sessions', { headers: { host: '127.0.0.1:4517' } });
    expect(list.status).toBe(200);
    const before = await claudeCount();
    const conv = await app.request(`http://127.0.0.1:4517/api/v1/web/sessions/${PI}/convert`, {
      method: 'POST',
      headers: { host: '127.0.0.1:4517', origin: 'http://127.0.0.1:4517', 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'claude' }),
    });
    expect(conv.status, await conv.text()).toBe(200);
    expect(await claudeCount()).toBe(before + 1);
    for (const host of ['localhost:4517', '[::1]:4517', '192.168.1.20:4517'])
      expect((await app.request(`http://${host}/api/v1/web/meta`, { headers: { host } })).status, host).toBe(200);
  });

  it('refuses a cross-origin write (CSRF), whatever its content type, and writes nothing', async () => {
    const before = await claudeCount();
    for (const [origin, type] of [
      ['http://evil.example', 'text/plain'],
      ['http://evil.example', 'application/json'],
      ['null', 'text/plain'],
      ['http://127.0.0.1:9999', 'application/x-www-form-urlencoded'],
    ]) {
      const res = await app.request(`http://127.0.0.1:4517/api/v1/web/sessions/${PI}/convert`, {
        method: 'POST',
        headers: { host: '127.0.0.1:4517', origin: origin as string, 'content-type': type as string },
        body: JSON.stringify({ to: 'claude' }),
      });
      refused++;
      expect(res.status, `${origin} ${type}`).toBe(403);
    }
    // Without an Origin header (old browsers, some form posts) a write must still be JSON.
    const form = await app.request(`http://127.0.0.1:4517/api/v1/web/sessions/${PI}/convert`, {
      method: 'POST',
      headers: { host: '127.0.0.1:4517', 'content-type': 'text/plain' },
      body: JSON.stringify({ to: 'claude' }),
    });
    refused++;
    expect(form.status).toBe(403);
    expect(await claudeCount()).toBe(before);
  });

  it('refuses a request for a domain name other than localhost (DNS rebinding)', async () => {
    for (const host of ['evil.example:4517', 'rebind.attacker.test', 'localhost.evil.example:4517']) {
      const res = await app.request(`http://${host}/api/v1/web/sessions`, { headers: { host } });
      refused++;
      expect(res.status, host).toBe(403);
      expect(await res.text()).not.toContain(PI);
    }
  });
});
