/**
 * Load test of `threadbase serve` on loopback over the real PostgreSQL: concurrent clients append
 * Anthropic messages through the Acontext route (POST /api/v1/session/:id/messages), bounded in
 * count and time. Reports appends per second and latency percentiles, checks that every accepted
 * append was stored exactly once, and writes its section of bench/RESULTS.md.
 *
 *   node --import tsx bench/server-load.ts [--appends 3000] [--clients 16] [--sessions 8] [--seconds 60]
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startServer } from '../src/server/index.js';
import { PostgresTokenStore } from '../src/server/tokens.js';
import { openPostgresStore } from '../src/stores/postgres/index.js';

const args = process.argv.slice(2);
const arg = (name: string, dflt: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const TOTAL = arg('appends', 3000);
const CLIENTS = arg('clients', 16);
const SESSIONS = arg('sessions', 8);
const SECONDS = arg('seconds', 60);
const PG_URL = process.env.THREADBASE_BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

async function main(): Promise<void> {
  const schema = `tb_bench_${randomBytes(5).toString('hex')}`;
  const store = await openPostgresStore(`${PG_URL}?schema=${schema}`, { max: 10 });
  const tokens = new PostgresTokenStore(store.pool, store.ready());
  const { key } = await tokens.createToken('bench');
  const server = await startServer({ store, tokens, port: 0, log: () => undefined });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  try {
    const sessionIds: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const r = await fetch(`${server.url}/api/v1/session`, { method: 'POST', headers, body: '{}' });
      sessionIds.push(((await r.json()) as { data: { id: string } }).data.id);
    }
    const latencies: number[] = [];
    let next = 0;
    let failed = 0;
    const deadline = Date.now() + SECONDS * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (Date.now() < deadline) {
          const n = next++;
          if (n >= TOTAL) return;
          const sessionId = sessionIds[n % sessionIds.length];
          const blob =
            n % 3 === 1
              ? {
                  role: 'assistant',
                  content: [
                    { type: 'text', text: `step ${n}` },
                    { type: 'tool_use', id: `toolu_${n}`, name: 'bash', input: { command: `echo ${n}` } },
                  ],
                }
              : { role: 'user', content: [{ type: 'text', text: `message ${n} ${'lorem ipsum '.repeat(20)}` }] };
          const t0 = performance.now();
          const r = await fetch(`${server.url}/api/v1/session/${sessionId}/messages`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ blob, format: 'anthropic' }),
          });
          await r.arrayBuffer();
          latencies.push(performance.now() - t0);
          if (r.status !== 201) failed++;
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    const ok = latencies.length - failed;
    const stored = await store.pool.query<{ n: string; distinct_ids: string }>(
      'SELECT count(*) AS n, count(DISTINCT (session_id, id)) AS distinct_ids FROM tb_entries',
    );
    const storedCount = Number(stored.rows[0]?.n);
    const sorted = [...latencies].sort((a, b) => a - b);
    const result = {
      date: new Date().toISOString(),
      cpus: cpus().length,
      clients: CLIENTS,
      sessions: SESSIONS,
      attempted: latencies.length,
      accepted: ok,
      failed,
      stored: storedCount,
      storedExactlyOnce: storedCount === ok && Number(stored.rows[0]?.distinct_ids) === storedCount,
      seconds: Number(elapsed.toFixed(2)),
      appendsPerSecond: Math.round(ok / elapsed),
      p50ms: Number(percentile(sorted, 50).toFixed(1)),
      p99ms: Number(percentile(sorted, 99).toFixed(1)),
      maxms: Number((sorted[sorted.length - 1] ?? 0).toFixed(1)),
    };
    console.log(JSON.stringify(result, null, 2));
    await writeSection(result);
    if (!result.storedExactlyOnce || failed) process.exitCode = 1;
  } finally {
    await server.close();
    await store.close();
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await c.end();
  }
}

const START = '<!-- server-load:start -->';
const END = '<!-- server-load:end -->';

/** Replaces this benchmark's own section of bench/RESULTS.md (other sections are left as they are). */
async function writeSection(r: Record<string, unknown>): Promise<void> {
  const path = join(import.meta.dirname, 'RESULTS.md');
  let text = '';
  try {
    text = await readFile(path, 'utf8');
  } catch {
    text = '# Benchmark results\n';
  }
  const section = `${START}
## Server load (\`bench/server-load.ts\`)

\`threadbase serve\` on loopback over the real PostgreSQL 15 (fresh schema), ${r.clients} concurrent
clients appending Anthropic messages (every third one with a tool_use) to ${r.sessions} sessions
through the Acontext route \`POST /api/v1/session/:id/messages\`, on a ${r.cpus}-core machine shared
with other work; the clients run in the server's own Node process, so they share its CPU. Each
append is one HTTP request (bearer key checked), one transaction, one row.

| appends | seconds | appends/s | p50 latency | p99 latency | max | stored exactly once |
|--:|--:|--:|--:|--:|--:|:--|
| ${r.accepted} | ${r.seconds} | **${r.appendsPerSecond}** | ${r.p50ms} ms | **${r.p99ms} ms** | ${r.maxms} ms | ${r.storedExactlyOnce ? 'yes' : 'NO'} (${r.stored} rows, ${r.failed} failed requests) |

Run ${String(r.date).slice(0, 16)} UTC: \`node --import tsx bench/server-load.ts\`.
${END}`;
  const at = text.indexOf(START);
  const end = text.indexOf(END);
  const out =
    at >= 0 && end > at ? text.slice(0, at) + section + text.slice(end + END.length) : `${text.trimEnd()}\n\n${section}\n`;
  await writeFile(path, out);
}

await main();
