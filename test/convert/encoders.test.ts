/**
 * The library surface of issue 5: convertSession by agent name (the default locations from the
 * environment) or with a driver, and the format encoders on their own (session in memory →
 * files or rows), each read back by threadbase's own drivers with the same context.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { opencodeContext, sessionFromExport, sessionFromOpencode } from '../../src/formats/opencode/index.js';
import * as lib from '../../src/index.js';
import type { Entry, Session } from '../../src/model/types.js';
import { messageEntry, ONE_PIXEL_PNG as PNG, secondInto2026 as t, textMessage } from '../helpers/sessions.js';

let home: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'tb-encoders-'));
});
afterAll(() => {
  vi.unstubAllEnvs();
  if (home) rmSync(home, { recursive: true, force: true });
});

function session(project: string): Session {
  const model = { model: 'claude-sonnet-4-5', provider: 'anthropic' };
  const entries: Entry[] = [
    messageEntry('m1', null, t(1), {
      role: 'user',
      parts: [
        { type: 'text', text: 'what is this?' },
        { type: 'image', mediaType: 'image/png', data: PNG },
      ],
    }),
    messageEntry('m2', 'm1', t(2), {
      role: 'assistant',
      ...model,
      usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, reasoning: 0 },
      parts: [
        { type: 'thinking', thinking: 'look at it', signature: 'c2ln' },
        { type: 'tool_call', id: 'toolu_enc_1', name: 'Bash', input: { command: 'file x.png' } },
      ],
    }),
    messageEntry('m3', 'm2', t(3), {
      role: 'tool',
      parts: [{ type: 'tool_result', callId: 'toolu_enc_1', content: 'PNG image', isError: false }],
    }),
    messageEntry('m4', 'm3', t(4), { role: 'assistant', ...model, parts: [{ type: 'text', text: 'A PNG.' }] }),
  ];
  return {
    id: 'lib',
    source: 'threadbase',
    project,
    title: 'library session',
    createdAt: t(0),
    updatedAt: t(4),
    messageCount: 4,
    entries,
  };
}

/**
 * The context as the Messages API takes it, in its wire-equivalent shape: a tool result's string
 * content is one text block and `is_error: false` no flag (pi stores results as blocks).
 */
const anthropic = (ctx: lib.Context) =>
  lib.contextToAnthropic(ctx).messages.map((m) => ({
    role: m.role,
    content: (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content).map((b) => {
      if (b.type !== 'tool_result') return b;
      const { is_error, content, ...rest } = b;
      return {
        ...rest,
        content: typeof content === 'string' ? [{ type: 'text', text: content }] : content,
        ...(is_error ? { is_error } : {}),
      };
    }),
  }));

describe('convertSession and the encoders from the package root', () => {
  it('convertSession(session, { to: name }) resolves the agent from the environment; { to, at } converts a path', async () => {
    const envHome = join(home, 'default-home');
    mkdirSync(envHome, { recursive: true });
    // The default locations: $HOME, and the agents' own overrides left unset.
    vi.stubEnv('HOME', envHome);
    vi.stubEnv('PI_CODING_AGENT_DIR', '');
    vi.stubEnv('CLAUDE_CONFIG_DIR', '');
    const s = session(join(home, 'project'));
    const written = await lib.convertSession(s, { to: 'pi' });
    expect(written).toMatchObject({ source: 'pi', title: 'library session', project: join(home, 'project') });
    expect(written.path?.startsWith(join(envHome, '.pi', 'agent', 'sessions'))).toBe(true);
    const env = { home: envHome, env: {} };
    const pi = new lib.Sources(env).driver('pi');
    expect(anthropic(await pi.getContext(written.id))).toEqual(anthropic(lib.buildContext(s)));

    const claude = new lib.Sources(env).driver('claude');
    const atTool = await lib.convertSession(s, { to: claude, at: 'm2' });
    expect(atTool.path?.startsWith(join(envHome, '.claude', 'projects'))).toBe(true);
    // Claude Code closes the call left without result and answers for the model (its resume request);
    // the rendered request closes it too, in its own words, so the two agree up to the call
    const upTo = anthropic(lib.buildContext(s, { leafId: 'm2' })).slice(0, -1);
    expect(anthropic(await claude.getContext(atTool.id)).slice(0, upTo.length)).toEqual(upTo);
    // the older call shape still works: a driver and options
    const byDriver = await lib.convertSession(s, claude, { at: 'm1' });
    expect((await claude.getContext(byDriver.id)).messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    vi.unstubAllEnvs();
  });

  it("encodeClaudeTranscript words another agent's stop reasons as the Messages API does", () => {
    const reply = (id: string, parentId: string, stopReason: string, call = false): Entry =>
      messageEntry(id, parentId, 2, {
        role: 'assistant',
        stopReason,
        parts: call ? [{ type: 'tool_call', id: `toolu_${id}`, name: 'bash', input: {} }] : [{ type: 'text', text: id }],
      });
    const s: Session = {
      id: 'stops',
      source: 'pi',
      createdAt: t(0),
      updatedAt: t(3),
      messageCount: 5,
      entries: [
        messageEntry('u', null, t(1), textMessage('user', 'go')),
        reply('a1', 'u', 'toolUse', true),
        reply('a2', 'a1', 'stop'),
        reply('a3', 'a2', 'length'),
        reply('a4', 'a3', 'max_tokens'),
      ],
    };
    const reasons = lib
      .encodeClaudeTranscript(s)
      .records.filter((r) => r.type === 'assistant')
      .map((r) => (r.message as { stop_reason: string }).stop_reason);
    expect(reasons).toEqual(['tool_use', 'end_turn', 'max_tokens', 'max_tokens']);
  });

  it('encodeClaudeTranscript and encodePiSessionFile give files the drivers (and so the agents) read back the same', async () => {
    const fileHome = join(home, 'files');
    const s = session(join(home, 'project'));
    const claudeFile = lib.encodeClaudeTranscript(s);
    expect(claudeFile.jsonl.split('\n').filter(Boolean)).toHaveLength(claudeFile.records.length);
    const claudePath = join(fileHome, '.claude', claudeFile.relativePath);
    mkdirSync(dirname(claudePath), { recursive: true });
    writeFileSync(claudePath, claudeFile.jsonl);
    const piFile = lib.encodePiSessionFile(s, { now: new Date(Date.UTC(2026, 0, 2)) });
    expect(piFile.records[0]).toMatchObject({ type: 'session', id: piFile.sessionId, cwd: join(home, 'project') });
    const piPath = join(fileHome, '.pi', 'agent', piFile.relativePath);
    mkdirSync(dirname(piPath), { recursive: true });
    writeFileSync(piPath, piFile.jsonl);

    const sources = new lib.Sources({ home: fileHome, env: {} });
    const expected = anthropic(lib.buildContext(s));
    expect(JSON.stringify(expected)).toContain('"signature":"c2ln"');
    expect(anthropic(await sources.driver('claude').getContext(claudeFile.sessionId))).toEqual(expected);
    expect(anthropic(await sources.driver('pi').getContext(piFile.sessionId))).toEqual(expected);
    expect((await sources.driver('pi').getSession(piFile.sessionId))?.project).toBe(join(home, 'project'));
  });

  it('encodeOpenCodeSession gives the session, message and part rows, and export JSON, that read back the same', () => {
    const s = session(join(home, 'project'));
    const oc = lib.encodeOpenCodeSession(s);
    expect(oc.data.info).toMatchObject({ id: oc.sessionId, title: 'library session', directory: join(home, 'project') });
    expect(oc.data.messages.map((m) => m.info.role)).toEqual(['user', 'assistant', 'assistant']);
    expect(oc.exportJson.info.id).toBe(oc.sessionId);
    const back = sessionFromOpencode(oc.data, { file: 'memory' });
    expect(anthropic(opencodeContext(back))).toEqual(anthropic(lib.buildContext(s)));
    const imported = sessionFromExport(JSON.parse(JSON.stringify(oc.exportJson)), 'export.json');
    expect(anthropic(opencodeContext(imported))).toEqual(anthropic(lib.buildContext(s)));
  });
});
