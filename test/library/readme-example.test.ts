/**
 * README.md's Library example, run verbatim against the sources (its `from 'threadbase'` pointed at
 * src/index.ts) and type-checked as an author's strict TypeScript, so the README cannot rot.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The ```ts block under the `## Library` heading. */
function libraryExample(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const at = readme.indexOf('\n## Library\n');
  expect(at, 'README.md has a "## Library" section').toBeGreaterThan(0);
  const section = readme.slice(at + 1).split(/\n## /)[0] ?? '';
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  expect(block, 'the Library section has a ```ts block').toBeDefined();
  return block ?? '';
}

let dir: string;
let file: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tb-readme-'));
  const code = libraryExample();
  expect(code).toContain("from 'threadbase'");
  file = join(dir, 'example.mts');
  writeFileSync(file, code.replaceAll("from 'threadbase'", `from ${JSON.stringify(join(root, 'src/index.js'))}`));
  // a home with Claude Code's sessions from the fixtures, for the example's Sources part
  mkdirSync(join(dir, 'home', '.claude'), { recursive: true });
  cpSync(join(root, 'test/fixtures/claude/real/projects'), join(dir, 'home', '.claude', 'projects'), { recursive: true });
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("README's Library example", () => {
  it('runs and prints what its comments say', () => {
    const home = join(dir, 'home');
    const r = spawnSync(process.execPath, ['--import', 'tsx', file], {
      cwd: root,
      encoding: 'utf8',
      timeout: 60_000,
      env: { PATH: process.env.PATH, HOME: home, THREADBASE_HOME: join(home, '.threadbase') },
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 4)).toEqual([
      'true 7 2 true',
      'You are a shell assistant. user assistant user assistant user',
      'system user assistant tool assistant user',
      '2400',
    ]);
    // three of the fixture's Claude Code sessions, each with a context to resume and output tokens
    const claude = lines.slice(4);
    expect(claude).toHaveLength(3);
    for (const line of claude) expect(line).toMatch(/^[0-9a-f-]{36} \/\S+ [1-9]\d* [1-9]\d*$/);
  });

  it('type-checks under strict TypeScript', () => {
    const program = ts.createProgram([file], {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(root, 'node_modules/@types')],
    });
    const source = program.getSourceFile(file);
    expect(source).toBeDefined();
    // the example's own diagnostics only: the sources are checked by the project's tsc
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map(
      (d) =>
        `${d.start !== undefined && source ? source.getLineAndCharacterOfPosition(d.start).line + 1 : '?'}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
    expect(diagnostics).toEqual([]);
  });
});
