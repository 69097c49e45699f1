/**
 * Every 4xx answer of the server carries a stable error code as `reason` (the OpenAPI Error schema
 * lists them), also those that come from no ThreadbaseError: a bad JSON body, an unknown route,
 * a parameter or body refused, a missing or wrong key, a body too large. They carried none, so a
 * RemoteStore's error had code `remote` for all of them. Status codes and messages are as before.
 * Against a real server over loopback, on SQLite and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ThreadbaseError } from '../../src/model/errors.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { RemoteError, RemoteStore } from '../../src/stores/remote/index.js';
import { type LoopbackServer, startRecordingServer, writeJson } from '../helpers/loopback-server.js';
import { oneMessageSession } from '../helpers/sessions.js';
import { postgresBackend, type ServerBackend, sqliteBackend } from './pg-helpers.js';

interface Answer {
  status: number;
  body: { code?: number; msg?: string; error?: string; reason?: string };
}

describe.each([
  ['SQLite', () => sqliteBackend('tb-http-codes-')],
  ['PostgreSQL', () => postgresBackend('tb_http_codes')],
])('4xx answers of a server on %s', (_name, backendOf) => {
  let backend: ServerBackend;
  let server: RunningServer;
  let key: string;

  beforeAll(async () => {
    backend = await backendOf();
    key = (await backend.tokens.createToken('team')).key;
    server = await startServer({
      store: backend.store,
      tokens: backend.tokens,
      port: 0,
      maxBodyBytes: 20_000,
      log: () => undefined,
    });
    await new RemoteStore(server.url, { key }).writeSession(oneMessageSession('there'), { keepId: true });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await backend?.close();
  });

  const ask = async (method: string, path: string, body?: string, auth: string | null = key): Promise<Answer> => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...(auth === null ? {} : { authorization: `Bearer ${auth}` }), 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body }),
    });
    return { status: res.status, body: (await res.json()) as Answer['body'] };
  };

  const tb = '/api/v1/threadbase';
  // u1 of "there" says "hi": this one, under its id, says another thing
  const changedU1 = { ...oneMessageSession('there', undefined, 'bye').entries[0] };
  // [what, request, status, reason, message (as before)]
  const cases: [string, () => Promise<Answer>, number, string, string | RegExp][] = [
    ['no key', () => ask('GET', `${tb}/sessions`, undefined, null), 401, 'unauthorized', 'missing Authorization: Bearer <key>'],
    ['a wrong key', () => ask('GET', `${tb}/sessions`, undefined, 'tb_wrong'), 401, 'unauthorized', 'invalid API key'],
    [
      'a body not JSON',
      () => ask('PUT', `${tb}/sessions/x`, '{not json'),
      400,
      'invalid_json',
      /^request body is not valid JSON \(/,
    ],
    ['a body of the wrong shape', () => ask('PUT', `${tb}/sessions/x`, '{}'), 400, 'invalid_body', /^invalid body at session: /],
    [
      'a header time naming no time',
      () => ask('PUT', `${tb}/sessions/x`, JSON.stringify({ session: { id: 'x', createdAt: 'soon' }, entries: [] })),
      400,
      'invalid_body',
      'invalid body at session.createdAt: expected an ISO date or time, got "soon"',
    ],
    [
      'a message blob not understood',
      () => ask('POST', '/api/v1/session/there/messages', JSON.stringify({ blob: 'hi' })),
      400,
      'invalid_body',
      'blob must be an object',
    ],
    [
      'a limit of 0',
      () => ask('GET', `${tb}/sessions?limit=0`),
      400,
      'invalid_parameter',
      'limit must be a positive integer, got "0"',
    ],
    ['a search without q', () => ask('GET', `${tb}/search`), 400, 'invalid_parameter', 'q is required'],
    ['an unknown tz', () => ask('GET', `${tb}/stats?tz=Mars/Base`), 400, 'invalid_parameter', /^tz must be an IANA time zone/],
    [
      'a NUL in the path',
      () => ask('GET', `${tb}/sessions/a%00b`),
      400,
      'unstorable_id',
      'ids and queries cannot contain NUL (U+0000)',
    ],
    ['no such session', () => ask('GET', `${tb}/sessions/nowhere`), 404, 'not_found', 'session not found: nowhere'],
    ['no such route', () => ask('GET', `${tb}/nothing`), 404, 'no_route', `no route GET ${tb}/nothing`],
    [
      'a method the path does not answer',
      () => ask('PATCH', `${tb}/sessions/there`),
      405,
      'method_not_allowed',
      `PATCH is not allowed on ${tb}/sessions/there (allowed: DELETE, GET, HEAD, PUT)`,
    ],
    [
      'a body too large',
      () => ask('PUT', `${tb}/sessions/x`, JSON.stringify({ session: { id: 'x' }, entries: [], pad: 'x'.repeat(30_000) })),
      413,
      'payload_too_large',
      'request body too large (this server takes at most 20000 bytes)',
    ],
    [
      'an entry stored with other content (a ThreadbaseError: its own code)',
      () => ask('POST', `${tb}/sessions/there/entries`, JSON.stringify({ entries: [changedU1] })),
      409,
      'duplicate_entry',
      /^entry id u1 is already in session there with other content/,
    ],
  ];

  it.each(cases)('%s: its status, its message and a code', async (_what, request, status, reason, message) => {
    const { status: got, body } = await request();
    expect(got).toBe(status);
    expect(body.msg).toMatch(message);
    expect(body.code).toBe(status);
    expect(body.reason).toBe(reason);
  });

  it('every code a 4xx carries is in the OpenAPI Error schema', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      components: { schemas: { Error: { properties: { reason: { enum: string[] } } } } };
    };
    const codes = doc.components.schemas.Error.properties.reason.enum;
    for (const [, , , reason] of cases) expect(codes).toContain(reason);
  });

  it("a RemoteStore's error takes the code (it was `remote`)", async () => {
    const wrongKey = new RemoteStore(server.url, { key: 'tb_wrong' });
    await expect(wrongKey.listSessions()).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
    const remote = new RemoteStore(server.url, { key });
    const noQuery = await remote.search('').catch((error: unknown) => error);
    expect(noQuery).toBeInstanceOf(RemoteError);
    expect(noQuery).toMatchObject({ status: 400, code: 'invalid_parameter', message: 'server answered 400: q is required' });
    await expect(remote.forkSession('nowhere')).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('an answer without reason (an older server, a proxy)', () => {
  let other: LoopbackServer;
  beforeAll(async () => {
    other = await startRecordingServer((req, res) =>
      req.path.endsWith('/sessions')
        ? writeJson(res, 401, { code: 401, msg: 'invalid API key', error: 'unauthorized' })
        : writeJson(res, 413, { code: 413, msg: 'too large', error: 'payload too large' }),
    );
  });
  afterAll(() => other?.close());

  it("gives RemoteError its status's code", async () => {
    const remote = new RemoteStore(`http://127.0.0.1:${other.port}`, { key: 'k' });
    const refused = await remote.listSessions().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ThreadbaseError);
    expect(refused).toMatchObject({ status: 401, code: 'unauthorized', message: 'server answered 401: invalid API key' });
    await expect(remote.appendEntries('s', [])).rejects.toMatchObject({ status: 413, code: 'payload_too_large' });
  });
});
