/**
 * The title of a VS Code extension task (its task history's `task`): the first line cut at 100
 * UTF-16 units between graphemes, never half a surrogate pair when an emoji straddles the cut.
 */
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ClineDriver } from '../../src/formats/cline/index.js';

const homes: string[] = [];
afterEach(async () => {
  await Promise.all(homes.splice(0).map((h) => fs.rm(h, { recursive: true, force: true })));
});

it('cuts a long task title between graphemes, not inside an emoji', async () => {
  const home = await fs.mkdtemp(join(tmpdir(), 'tb-cline-title-'));
  homes.push(home);
  const storage = join(home, '.config/Code/User/globalStorage/saoudrizwan.claude-dev');
  const taskId = '1700000000000';
  await fs.mkdir(join(storage, 'tasks', taskId), { recursive: true });
  await fs.writeFile(
    join(storage, 'tasks', taskId, 'api_conversation_history.json'),
    JSON.stringify([{ role: 'user', content: [{ type: 'text', text: '<task>\nhi\n</task>' }], ts: 1700000000100 }]),
  );
  // 99 units then a surrogate pair: a plain .slice(0, 100) keeps its lone high half
  const task = `${'a'.repeat(99)}😀 and more\nsecond line`;
  await fs.mkdir(join(storage, 'state'), { recursive: true });
  await fs.writeFile(join(storage, 'state', 'taskHistory.json'), JSON.stringify([{ id: taskId, ts: 1700000000400, task }]));
  const driver = new ClineDriver({ home, env: {} });
  const [listed] = await driver.listSessions();
  expect(listed?.title).toBe('a'.repeat(99));
  expect((await driver.getSession(taskId))?.title).toBe('a'.repeat(99));
});
