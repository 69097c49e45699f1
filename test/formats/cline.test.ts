/**
 * Reading Cline: the real CLI 3.0.65 sessions of the fixture, the VS Code extension's task layout
 * (Cline, Roo Code, Kilo Code), and bad input (a torn messages file, malformed items, a broken
 * manifest) reported with file and line while the rest loads.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClineDriver } from '../../src/formats/cline/index.js';
import { buildContext } from '../../src/model/tree.js';

const FIXTURE = resolve('test/fixtures/cline/real-3.0.65/data');
const homes: string[] = [];

async function tempHome(): Promise<string> {
  const home = await fs.mkdtemp(join(tmpdir(), 'tb-cline-read-'));
  homes.push(home);
  return home;
}

afterEach(async () => {
  await Promise.all(homes.splice(0).map((h) => fs.rm(h, { recursive: true, force: true })));
});

describe('Cline CLI sessions (real 3.0.65)', () => {
  const driver = new ClineDriver({ home: '/nonexistent', env: { CLINE_DATA_DIR: FIXTURE } });

  it('lists each session with its project, title, times and cost', async () => {
    const list = await driver.listSessions();
    expect(list.map((s) => s.id).sort()).toEqual([
      '1795664340517_twuoj',
      '1795664999999_abcde',
      '1795666477967_183oc',
      '1795666477967_183oc__agent_1795666478619_7xmhpw',
    ]);
    const s = list.find((x) => x.id === '1795664340517_twuoj');
    expect(s).toMatchObject({
      source: 'cline',
      project: '/tmp/cline-exp/proj',
      title: 'READ: notes.txt',
      createdAt: '2026-11-26T03:39:00.556Z',
      messageCount: 4,
      models: ['claude-sonnet-4-5'],
    });
    // the cost Cline recorded per response, summed: the manifest's totalCost
    expect(s?.cost).toBeCloseTo(0.001473, 9);
    expect(s?.usage).toMatchObject({ input: 131, output: 72 });
  });

  it("lists a sub-agent beside its root, its parent's spawn_agent call named", async () => {
    const list = await driver.listSessions();
    const sub = list.find((s) => s.id === '1795666477967_183oc__agent_1795666478619_7xmhpw');
    expect(sub).toMatchObject({
      parentId: '1795666477967_183oc',
      parentToolCallId: 'toolu_standin_0001',
      title: 'subtask alpha',
      project: '/tmp/cline-exp3/proj',
      messageCount: 2,
      cost: 0.000246,
    });
  });

  it('maps thinking, the tool call and its result paired, the typed text without its mode tag', async () => {
    const s = await driver.getSession('1795664340517_twuoj');
    const [user, asst, tool, answer] = (s?.entries ?? []).map((e) => (e.kind === 'message' ? e.message : undefined));
    expect(user?.parts).toEqual([{ type: 'text', text: 'READ: notes.txt', meta: { clineUserInputMode: 'act' } }]);
    expect(asst?.parts[0]).toMatchObject({ type: 'thinking', thinking: 'I should read it' });
    expect(asst?.parts[1]).toMatchObject({
      type: 'tool_call',
      id: 'toolu_standin_0001',
      name: 'read_files',
      input: { path: 'notes.txt' },
    });
    expect(asst).toMatchObject({ model: 'claude-sonnet-4-5', provider: 'anthropic', cost: 0.000741 });
    expect(tool?.role).toBe('tool');
    expect(tool?.parts[0]).toMatchObject({
      type: 'tool_result',
      callId: 'toolu_standin_0001',
      name: 'read_files',
      content: '[{"query":"notes.txt","result":"1 | hello from notes","success":true}]',
    });
    expect(answer?.role).toBe('assistant');
    expect(s?.entries[0]?.timestamp).toBe(new Date(1795664340902).toISOString());
  });

  it("the resumed session's context is what Cline sent on resume (earlier turns, the call, its result, the new prompt)", async () => {
    const s = await driver.getSession('1795664999999_abcde');
    const ctx = buildContext(s as NonNullable<typeof s>);
    expect(ctx.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    expect(ctx.messages[4]?.parts[0]).toMatchObject({ type: 'text', text: 'PROBE two' });
  });
});

describe('bad input', () => {
  it('a torn messages file: the whole messages before the tear load, the warning names file and line', async () => {
    const home = await tempHome();
    const dir = join(home, '.cline', 'data', 'sessions', '1795664340517_twuoj');
    await fs.mkdir(dir, { recursive: true });
    const src = join(FIXTURE, 'sessions', '1795664340517_twuoj');
    await fs.copyFile(join(src, '1795664340517_twuoj.json'), join(dir, '1795664340517_twuoj.json'));
    const text = await fs.readFile(join(src, '1795664340517_twuoj.messages.json'), 'utf8');
    // cut inside the third message (the tool result)
    const cut = text.indexOf('"tool_use_id"');
    await fs.writeFile(join(dir, '1795664340517_twuoj.messages.json'), text.slice(0, cut));
    const tornLine = text.slice(0, text.lastIndexOf('{', text.lastIndexOf('"id": "msg_Y7qsHq_O"'))).split('\n').length;
    const driver = new ClineDriver({ home, env: {} });
    const s = await driver.getSession('1795664340517_twuoj');
    expect(s?.entries.map((e) => e.id)).toEqual(['3241919e-f907-4c48-9a24-fd8e6586dcd5', 'msg_hkvnQpIE']);
    expect(s?.title).toBe('READ: notes.txt');
    expect(s?.warnings).toEqual([
      expect.objectContaining({ file: join(dir, '1795664340517_twuoj.messages.json'), line: tornLine }),
    ]);
    expect(s?.warnings?.[0]?.message).toMatch(/torn/);
  });

  it('a malformed item is skipped with its line; a broken manifest is reported and the messages still load', async () => {
    const home = await tempHome();
    const dir = join(home, '.cline', 'data', 'sessions', '1795660000000_bad01');
    await fs.mkdir(dir, { recursive: true });
    const messages = [
      { id: 'u1', role: 'user', content: [{ type: 'text', text: 'first question' }], ts: 1795660000100 },
      { id: 'x', role: 'narrator', content: 'not a message' },
      { id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'an answer' }], ts: 1795660000200 },
    ];
    const file = join(dir, '1795660000000_bad01.messages.json');
    await fs.writeFile(file, JSON.stringify({ version: 1, sessionId: '1795660000000_bad01', messages }, null, 2));
    await fs.writeFile(join(dir, '1795660000000_bad01.json'), '{"version": 1, "session_id": ');
    const written = await fs.readFile(file, 'utf8');
    // the line the bad item's `{` is on
    const lineOfBad = written.slice(0, written.lastIndexOf('{', written.indexOf('"narrator"'))).split('\n').length;
    const driver = new ClineDriver({ home, env: {} });
    const list = await driver.listSessions();
    expect(list.map((s) => s.id)).toEqual(['1795660000000_bad01']);
    const s = await driver.getSession('1795660000000_bad01');
    expect(s?.entries.map((e) => e.id)).toEqual(['u1', 'a1']);
    expect(s?.warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ file: join(dir, '1795660000000_bad01.json'), line: 1 }),
        expect.objectContaining({ file, line: lineOfBad }),
      ]),
    );
  });
});

describe('VS Code extension tasks', () => {
  it('reads Cline, Roo Code and Kilo Code tasks with the title and project of their task history', async () => {
    const home = await tempHome();
    const history = [
      {
        role: 'user',
        content: [
          { type: 'text', text: '<task>\nfix the build\n</task>' },
          { type: 'text', text: '<environment_details>\n# Time\nnow\n</environment_details>' },
        ],
        ts: 1700000000100,
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'execute_command', input: { command: 'npm run build' } },
        ],
        ts: 1700000000200,
        modelInfo: { modelId: 'claude-sonnet-4', providerId: 'anthropic' },
        metrics: { inputTokens: 10, outputTokens: 5, cost: 0.01 },
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'built' }], ts: 1700000000300 },
    ];
    const places = [
      ['.config/Code', 'saoudrizwan.claude-dev'],
      ['.config/VSCodium', 'rooveterinaryinc.roo-cline'],
      ['.config/Cursor', 'kilocode.kilo-code'],
    ] as const;
    for (const [i, [editor, ext]] of places.entries()) {
      const storage = join(home, editor, 'User', 'globalStorage', ext);
      const taskId = `170000000000${i}`;
      await fs.mkdir(join(storage, 'tasks', taskId), { recursive: true });
      await fs.writeFile(join(storage, 'tasks', taskId, 'api_conversation_history.json'), JSON.stringify(history));
      await fs.mkdir(join(storage, 'state'), { recursive: true });
      await fs.writeFile(
        join(storage, 'state', 'taskHistory.json'),
        JSON.stringify([{ id: taskId, ts: 1700000000400, task: `fix the build ${i}`, cwdOnTaskInitialization: `/work/p${i}` }]),
      );
    }
    const driver = new ClineDriver({ home, env: {} });
    const list = await driver.listSessions();
    expect(list.map((s) => [s.id, s.title, s.project, s.meta?.extension]).sort()).toEqual([
      ['1700000000000', 'fix the build 0', '/work/p0', 'saoudrizwan.claude-dev'],
      ['1700000000001', 'fix the build 1', '/work/p1', 'rooveterinaryinc.roo-cline'],
      ['1700000000002', 'fix the build 2', '/work/p2', 'kilocode.kilo-code'],
    ]);
    const s = await driver.getSession('1700000000001');
    const first = s?.entries[0];
    expect(first?.kind === 'message' && first.message.parts[0]).toMatchObject({ type: 'text', text: 'fix the build' });
    expect(s?.cost).toBe(0.01);
    const ctx = buildContext(s as NonNullable<typeof s>);
    expect(ctx.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(ctx.messages[2]?.parts[0]).toMatchObject({ type: 'tool_result', callId: 'toolu_1', content: 'built' });
  });
});

describe('resume command', () => {
  it('is `cline --id <id>` in the project, quoted, with the data folder Cline was pointed at', () => {
    const info = {
      id: '1795664340517_twuoj',
      source: 'cline',
      project: "/tmp/it's here",
      createdAt: '',
      updatedAt: '',
      messageCount: 0,
    };
    expect(new ClineDriver({ home: '/h', env: {} }).resumeCommand(info)).toBe(
      `cd '/tmp/it'\\''s here' && cline --id 1795664340517_twuoj`,
    );
    expect(new ClineDriver({ home: '/h', env: { CLINE_DATA_DIR: '/data dir' } }).resumeCommand(info)).toBe(
      `cd '/tmp/it'\\''s here' && CLINE_DATA_DIR='/data dir' cline --id 1795664340517_twuoj`,
    );
  });
});

describe("Cline's own image and file blocks", () => {
  it('are read as images and files, in messages and in tool results', async () => {
    const home = await tempHome();
    const dir = join(home, '.cline', 'data', 'sessions', '1795660000000_img01');
    await fs.mkdir(dir, { recursive: true });
    const png = 'iVBORw0KGgo=';
    const messages = [
      {
        id: 'u1',
        role: 'user',
        content: [
          { type: 'text', text: 'see' },
          { type: 'image', data: png, mediaType: 'image/png' },
          { type: 'file', path: '/p/a.md', content: '# A' },
        ],
        ts: 1795660000100,
      },
      {
        id: 'a1',
        role: 'assistant',
        content: [{ type: 'tool_use', id: 't1', name: 'read_files', input: {} }],
        ts: 1795660000200,
      },
      {
        id: 'r1',
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 't1',
            name: 'read_files',
            content: [
              { type: 'text', text: 'shot:' },
              { type: 'image', data: png, mediaType: 'image/jpeg' },
            ],
          },
        ],
        ts: 1795660000300,
      },
    ];
    await fs.writeFile(join(dir, '1795660000000_img01.messages.json'), JSON.stringify({ version: 1, messages }));
    const s = await new ClineDriver({ home, env: {} }).getSession('1795660000000_img01');
    const parts = (i: number) => {
      const e = s?.entries[i];
      return e?.kind === 'message' ? e.message.parts : [];
    };
    expect(parts(0).slice(1)).toEqual([
      { type: 'image', mediaType: 'image/png', data: png },
      { type: 'file', mediaType: 'text/plain', text: '# A', name: '/p/a.md' },
    ]);
    expect(parts(2)[0]).toMatchObject({
      type: 'tool_result',
      callId: 't1',
      name: 'read_files',
      content: [
        { type: 'text', text: 'shot:' },
        { type: 'image', mediaType: 'image/jpeg', data: png },
      ],
    });
  });
});

describe('an older extension task without metrics', () => {
  it("takes each request's tokens and cost from ui_messages.json's api_req_started records", async () => {
    const home = await tempHome();
    const task = join(home, '.config', 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev', 'tasks', '1690000000000');
    await fs.mkdir(task, { recursive: true });
    await fs.writeFile(
      join(task, 'api_conversation_history.json'),
      JSON.stringify([
        { role: 'user', content: [{ type: 'text', text: '<task>\nhi\n</task>' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
        { role: 'user', content: [{ type: 'text', text: 'more' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'sure' }] },
      ]),
    );
    const req = (tokensIn: number, tokensOut: number, cost: number) => ({
      ts: 1,
      type: 'say',
      say: 'api_req_started',
      text: JSON.stringify({ request: '...', tokensIn, tokensOut, cacheWrites: 5, cacheReads: 7, cost }),
    });
    await fs.writeFile(
      join(task, 'ui_messages.json'),
      JSON.stringify([
        { ts: 0, type: 'say', say: 'task', text: 'hi' },
        req(100, 10, 0.01),
        { ts: 2, type: 'say', say: 'text', text: 'hello' },
        req(200, 20, 0.02),
      ]),
    );
    const s = await new ClineDriver({ home, env: {} }).getSession('1690000000000');
    expect(s?.usage).toMatchObject({ input: 300, output: 30, cacheRead: 14, cacheWrite: 10 });
    expect(s?.cost).toBeCloseTo(0.03, 10);
  });
});
