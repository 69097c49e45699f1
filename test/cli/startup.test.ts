/**
 * Every command starts without loading the server: its modules (hono, zod, pg) took ≈ 0.2 s of each
 * `threadbase sessions` before `serve`, `ui` and `token` imported them on demand. Walks the static
 * imports from the CLI's entry (type-only imports and `await import()` load nothing at start-up).
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

function startupGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const todo = [entry];
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
  it('loads neither the server nor its packages until a command needs them', () => {
    const { files, packages } = startupGraph(resolve('src/cli/main.ts'));
    // the walk did reach the commands and the agents' formats
    expect([...files].some((f) => f.endsWith('src/cli/commands/sessions.ts'))).toBe(true);
    expect([...files].some((f) => f.endsWith('src/formats/claude/driver.ts'))).toBe(true);
    expect(packages.has('commander')).toBe(true);
    // push.ts is the server's client (fetch and the local push state), used by `threadbase push`
    expect([...files].filter((f) => f.includes('/src/server/') && !f.endsWith('/src/server/push.ts'))).toEqual([]);
    expect([...packages].filter((p) => HEAVY_PACKAGES.includes(p))).toEqual([]);
  });
});
