/**
 * Every command starts without loading the server: its modules (hono, zod, pg) took ≈ 0.2 s of each
 * `threadbase sessions` before `serve`, `ui` and `token` imported them on demand. Walks the static
 * imports (type-only imports and `await import()` load nothing at start-up) from the CLI's entry,
 * which loads the commands and formats on demand (src/cli/lazy-commands.ts), and from what it loads
 * for a command: every command's file, the agents' formats and threadbase's own store.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const HEAVY_PACKAGES = ['hono', '@hono/node-server', 'zod', 'pg', 'playwright-core'];

function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  // `import x from '…'`, `import { a } from '…'`, `import '…'`, `export … from '…'`; not `import type`
  for (const m of text.matchAll(/^(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm))
    out.push(m[1] as string);
  return out;
}

function startupGraph(...entries: string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const todo = [...entries];
  while (todo.length) {
    const file = todo.pop() as string;
    if (files.has(file)) continue;
    files.add(file);
    for (const spec of staticImports(file)) {
      if (spec.startsWith('.')) todo.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else if (!spec.startsWith('node:'))
        packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string));
    }
  }
  return { files, packages };
}

describe('CLI start-up', () => {
  it('loads no command, format or store before the command line names one', () => {
    const { files, packages } = startupGraph(resolve('src/cli/main.ts'));
    expect([...files].filter((f) => /\/src\/(cli\/commands|cli\/io\.ts|formats|stores|convert|export|server)\b/.test(f))).toEqual(
      [],
    );
    expect([...packages]).toEqual(['commander']);
  });

  it('loads neither the server nor its packages until a command needs them', () => {
    const { files, packages } = startupGraph(
      resolve('src/cli/main.ts'),
      // what src/cli/lazy-commands.ts loads for a command
      resolve('src/cli/commands/index.ts'),
      resolve('src/formats/all.ts'),
      resolve('src/stores/local-source.ts'),
    );
    // the walk did reach the commands and the agents' formats
    expect([...files].some((f) => f.endsWith('src/cli/commands/sessions.ts'))).toBe(true);
    expect([...files].some((f) => f.endsWith('src/formats/claude/driver.ts'))).toBe(true);
    expect(packages.has('commander')).toBe(true);
    // push.ts is the server's client (fetch and the local push state), used by `threadbase push`
    expect([...files].filter((f) => f.includes('/src/server/') && !f.endsWith('/src/server/push.ts'))).toEqual([]);
    expect([...packages].filter((p) => HEAVY_PACKAGES.includes(p))).toEqual([]);
  });
});
