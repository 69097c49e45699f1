/**
 * threadbase's context for a pi session equals pi's own (SessionManager from the dev dependency)
 * at every entry of random trees built through pi's own API: branches, branch summaries,
 * compactions (kept entries on and off the path), model and thinking changes, labels, custom
 * messages, `!` commands and tool calls.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionManager } from '@mariozechner/pi-coding-agent';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sessionDirName } from '../../src/formats/pi/index.js';
import { contextsAtEveryEntry } from '../fixtures/pi/compare.js';

type Op =
  | { t: 'user'; text: string; asString: boolean }
  | { t: 'assistant'; text: string; thinking: boolean; tool: boolean; error: boolean }
  | { t: 'compaction'; pick: number; offPath: boolean; summary: string }
  | { t: 'branch'; pick: number; summary: string | null }
  | { t: 'model'; n: number }
  | { t: 'thinking'; level: string }
  | { t: 'label'; pick: number; label: string | null }
  | { t: 'custom_message'; text: string }
  | { t: 'custom' }
  | { t: 'bash'; exclude: boolean; exitCode: number }
  | { t: 'info'; name: string };

const text = fc.string({ minLength: 0, maxLength: 12 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ t: fc.constant('user' as const), text, asString: fc.boolean() }) },
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant('assistant' as const),
      text,
      thinking: fc.boolean(),
      tool: fc.boolean(),
      error: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('compaction' as const), pick: fc.nat(), offPath: fc.boolean(), summary: text }),
  },
  { weight: 3, arbitrary: fc.record({ t: fc.constant('branch' as const), pick: fc.nat(), summary: fc.option(text) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('model' as const), n: fc.nat(3) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('thinking' as const), level: fc.constantFrom('off', 'low', 'high') }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('label' as const), pick: fc.nat(), label: fc.option(text) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('custom_message' as const), text }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('custom' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant('bash' as const), exclude: fc.boolean(), exitCode: fc.constantFrom(0, 1) }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('info' as const), name: text }) },
);

let callCounter = 0;
function build(ops: Op[]): SessionManager {
  const sm = SessionManager.inMemory('/work/project');
  const now = Date.now();
  for (const op of ops) {
    const ids = sm.getEntries().map((e) => e.id);
    switch (op.t) {
      case 'user':
        sm.appendMessage({
          role: 'user',
          content: op.asString
            ? op.text
            : [
                { type: 'text', text: op.text },
                ...(op.text.length % 3 === 0 ? [{ type: 'image' as const, data: 'iVBORw0KGgo=', mimeType: 'image/png' }] : []),
              ],
          timestamp: now,
        });
        break;
      case 'assistant': {
        const id = `call_${++callCounter}`;
        const content = [
          ...(op.thinking ? [{ type: 'thinking' as const, thinking: `t ${op.text}`, thinkingSignature: 'sig' }] : []),
          { type: 'text' as const, text: op.text },
          ...(op.tool ? [{ type: 'toolCall' as const, id, name: 'bash', arguments: { command: `echo ${op.text}` } }] : []),
        ];
        sm.appendMessage({
          role: 'assistant',
          content,
          api: 'anthropic-messages',
          provider: 'anthropic',
          model: 'claude-x',
          usage: {
            input: 3,
            output: 5,
            cacheRead: 1,
            cacheWrite: 2,
            totalTokens: 11,
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.01 },
          },
          stopReason: op.error ? 'error' : op.tool ? 'toolUse' : 'stop',
          ...(op.error ? { errorMessage: 'boom' } : {}),
          timestamp: now,
        });
        if (op.tool) {
          sm.appendMessage({
            role: 'toolResult',
            toolCallId: id,
            toolName: 'bash',
            content: [{ type: 'text', text: op.text }],
            isError: op.error,
            timestamp: now,
          });
        }
        break;
      }
      case 'compaction': {
        const path = sm.getBranch();
        const kept =
          op.offPath || path.length === 0
            ? (ids[op.pick % Math.max(ids.length, 1)] ?? 'nowhere')
            : (path[op.pick % path.length]?.id ?? 'nowhere');
        sm.appendCompaction(op.summary, kept, 1000 + op.pick);
        break;
      }
      case 'branch': {
        if (!ids.length) break;
        const at = ids[op.pick % ids.length] as string;
        if (op.summary === null) sm.branch(at);
        else sm.branchWithSummary(at, op.summary);
        break;
      }
      case 'model':
        sm.appendModelChange(op.n % 2 ? 'openai' : 'anthropic', `model-${op.n}`);
        break;
      case 'thinking':
        sm.appendThinkingLevelChange(op.level);
        break;
      case 'label':
        if (ids.length) sm.appendLabelChange(ids[op.pick % ids.length] as string, op.label ?? undefined);
        break;
      case 'custom_message':
        sm.appendCustomMessageEntry('ext', op.text.length % 2 ? op.text : [{ type: 'text', text: op.text }], true);
        break;
      case 'custom':
        sm.appendCustomEntry('ext', { n: ids.length });
        break;
      case 'bash':
        sm.appendMessage({
          role: 'bashExecution',
          command: 'ls',
          output: op.exitCode ? '' : 'a\nb',
          exitCode: op.exitCode,
          cancelled: false,
          truncated: false,
          excludeFromContext: op.exclude,
          timestamp: now,
        } as never);
        break;
      case 'info':
        sm.appendSessionInfo(op.name || 'x');
        break;
    }
  }
  return sm;
}

describe('pi context equals pi SessionManager context', () => {
  it('at every entry of random trees', async () => {
    const home = await fs.mkdtemp(join(tmpdir(), 'tb-pi-prop-'));
    const dir = join(home, '.pi', 'agent', 'sessions', sessionDirName('/work/project'));
    await fs.mkdir(dir, { recursive: true });
    let n = 0;
    let compared = 0;
    let withCompaction = 0;
    let withBranchSummary = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 30 }), async (ops) => {
        const sm = build(ops);
        const header = sm.getHeader();
        const entries = sm.getEntries();
        if (!header || entries.length === 0) return;
        const id = `0000000${++n}`.slice(-8) + '-0000-7000-8000-000000000000';
        const file = join(dir, `2026-01-01T00-00-00-000Z_${id}.jsonl`);
        await fs.writeFile(file, [{ ...header, id }, ...entries].map((e) => JSON.stringify(e)).join('\n') + '\n');
        for (const side of await contextsAtEveryEntry(file, { home, env: {} }, id)) {
          expect(side.ours, `leaf ${side.leafId}`).toEqual(side.pi);
          compared++;
        }
        if (entries.some((e) => e.type === 'compaction')) withCompaction++;
        if (entries.some((e) => e.type === 'branch_summary')) withBranchSummary++;
      }),
      { numRuns: 60 },
    );
    // The generator really produced the interesting shapes.
    expect(compared).toBeGreaterThan(200);
    expect(withCompaction).toBeGreaterThan(5);
    expect(withBranchSummary).toBeGreaterThan(5);
  }, 60_000);
});

type V1Op = { t: 'user' | 'assistant'; text: string } | { t: 'compaction'; back: number; summary: string };

describe('pi v1 files (linear, firstKeptEntryIndex) migrate as pi migrates them', () => {
  it('at every entry of random v1 files', async () => {
    const home = await fs.mkdtemp(join(tmpdir(), 'tb-pi-v1-'));
    const dir = join(home, '.pi', 'agent', 'sessions', sessionDirName('/work/v1'));
    await fs.mkdir(dir, { recursive: true });
    let n = 0;
    let keptSomething = 0;
    const v1Op: fc.Arbitrary<V1Op> = fc.oneof(
      fc.record({ t: fc.constantFrom('user' as const, 'assistant' as const), text }),
      fc.record({ t: fc.constant('compaction' as const), back: fc.nat(8), summary: text }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(v1Op, { minLength: 1, maxLength: 20 }), async (ops) => {
        const id = `${`0000000${++n}`.slice(-8)}-1111-7000-8000-000000000000`;
        const lines: object[] = [{ type: 'session', id, timestamp: '2025-01-01T00:00:00.000Z', cwd: '/work/v1' }];
        for (const op of ops) {
          const timestamp = '2025-01-01T00:00:01.000Z';
          if (op.t === 'compaction') {
            // An index into the file's lines (0 is the header), at or before this line.
            lines.push({
              type: 'compaction',
              timestamp,
              summary: op.summary,
              firstKeptEntryIndex: Math.max(0, lines.length - op.back),
              tokensBefore: 10,
            });
            if (lines.length - 1 - op.back > 0) keptSomething++;
          } else if (op.t === 'user')
            lines.push({ type: 'message', timestamp, message: { role: 'user', content: op.text, timestamp: 1 } });
          else {
            lines.push({
              type: 'message',
              timestamp,
              message: {
                role: 'assistant',
                content: [{ type: 'text', text: op.text }],
                api: 'anthropic-messages',
                provider: 'anthropic',
                model: 'm',
                stopReason: 'stop',
                timestamp: 1,
              },
            });
          }
        }
        const file = join(dir, `2025-01-01T00-00-00-000Z_${id}.jsonl`);
        await fs.writeFile(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
        for (const side of await contextsAtEveryEntry(file, { home, env: {} }, id))
          expect(side.ours, `leaf ${side.leafId}`).toEqual(side.pi);
      }),
      { numRuns: 40 },
    );
    expect(keptSomething).toBeGreaterThan(5);
  }, 60_000);
});
