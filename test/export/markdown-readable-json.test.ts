/**
 * A tool's output that is JSON whose strings hold line breaks (Cline's read_files: `[{"query",
 * "result": "   1 | …\n   2 | …"}]`, one line of `\n`s as recorded) is readable in the Markdown
 * export as it is on the HTML page and in the viewer (readableJson: each string's lines as lines),
 * with the output as recorded folded below it. Before, the Markdown had the one long line alone.
 * On the session real Cline 3.0.65 wrote (test/fixtures/cline/compaction-3.0.65), exported through
 * the CLI from a temp home.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliOk } from '../helpers/cli.js';
import { homeEnv } from '../helpers/fixture-homes.js';

const SESSION = '1795669065564_8ih0v';

describe('JSON tool output in the Markdown export', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'threadbase-md-readable-json-'));
    await cp(resolve('test/fixtures/cline/compaction-3.0.65/data'), join(home, '.cline', 'data'), { recursive: true });
  });
  afterAll(async () => {
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('readable, each line of the file a line, the output as recorded folded below', async () => {
    const md = await runCliOk(homeEnv(home), ['export', SESSION, '--format', 'md', '--no-index']);
    const at = md.indexOf('**tool result** (toolu_standin_0001)');
    expect(at).toBeGreaterThan(0);
    const result = md.slice(at, md.indexOf('\n## ', at));
    // readable: the file's lines one a line
    expect(result).toMatch(/^```\n- query: a\.txt\n {2}result: \|\n {7}1 \| alpha line\n {7}2 \| alpha line\n/m);
    // and as recorded, folded
    expect(result).toContain(
      '<details><summary>as recorded (JSON)</summary>\n\n```\n[{"query":"a.txt","result":"   1 | alpha line\\n',
    );
    expect(result.indexOf('<details>')).toBeGreaterThan(result.indexOf('- query: a.txt'));
  });
});
