/**
 * What `npm pack` ships: the files package.json's main/types/exports/bin point at, the viewer's
 * assets, no tests; and the built code imports at run time only Node's modules and dependencies.
 * Listed with `--dry-run --ignore-scripts` (no network, a few seconds); dist is built first when absent.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface PackageJson {
  main?: string;
  types?: string;
  bin?: Record<string, string>;
  exports?: Record<string, string | Record<string, string>>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;

let files: string[] = [];
beforeAll(() => {
  if (!existsSync(join(root, 'dist/index.js')))
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'pipe', timeout: 240_000 });
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  files = (JSON.parse(out) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
}, 300_000);

/** The packages a module imports by bare name (`pg`, `@hono/node-server`, not `node:fs` nor `./x.js`). */
function bareImports(code: string): string[] {
  const names = new Set<string>();
  // import/export … from 'x' (over lines; no quote can come before `from`), import 'x', import('x')
  const statements =
    /(?:^|\n)\s*(?:import|export)\s[^;'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const m of code.matchAll(statements)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (!spec || spec.startsWith('.') || spec.startsWith('node:') || builtinModules.includes(spec)) continue;
    const parts = spec.split('/');
    names.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? spec));
  }
  return [...names];
}

describe('the packed package', () => {
  it('holds what main, types, exports and bin name, and the built index with its types', () => {
    const named = [pkg.main, pkg.types, ...Object.values(pkg.bin ?? {})];
    for (const target of Object.values(pkg.exports ?? {}))
      named.push(...(typeof target === 'string' ? [target] : Object.values(target)));
    for (const path of named) expect(files, path).toContain(path?.replace(/^\.\//, ''));
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    // with the sources it ships, so an editor's "go to definition" lands in src, not in a .d.ts
    expect(files).toContain('dist/index.d.ts.map');
    expect(files).toContain('src/index.ts');
    // the web viewer serves its assets from the package's src (dist/server/web looks there)
    expect(files).toContain('src/server/web/assets/index.html');
  });

  it('loads by its name from CommonJS too (require of an ES module, Node 20.19+), as from ESM', () => {
    // the package names itself through its exports (self-reference), so this resolves as a dependent's would
    const run = (args: string[]) =>
      execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 60_000, stdio: 'pipe' }).trim();
    expect(run(['-e', "console.log(typeof require('threadbase').openStore)"])).toBe('function');
    expect(run(['--input-type=module', '-e', "const m = await import('threadbase'); console.log(typeof m.openStore)"])).toBe(
      'function',
    );
  });

  it('holds no tests, fixtures, benchmarks nor build leftovers', () => {
    const stray = files.filter((f) =>
      /^(test|bench|test-results|node_modules)\/|\.test\.[jt]s$|(^|\/)\.threadbase-test\//.test(f),
    );
    expect(stray).toEqual([]);
  });

  it('packs no built module whose source is gone (tsc leaves a removed module in dist)', () => {
    const stale = files.filter(
      (f) => f.startsWith('dist/') && f.endsWith('.js') && !existsSync(join(root, 'src', f.slice(5).replace(/\.js$/, '.ts'))),
    );
    expect(stale, 'rm -rf dist && npm run build').toEqual([]);
  });

  it('imports at run time only dependencies (no devDependency) from its built code', () => {
    const runtime = new Set(Object.keys(pkg.dependencies ?? {}));
    const wrong: string[] = [];
    for (const f of files.filter((f) => f.startsWith('dist/') && f.endsWith('.js'))) {
      for (const name of bareImports(readFileSync(join(root, f), 'utf8'))) if (!runtime.has(name)) wrong.push(`${f}: ${name}`);
    }
    expect(wrong).toEqual([]);
  });

  // The declarations name better-sqlite3's and pg's types: their @types packages are dependencies, or a
  // consumer with skipLibCheck off gets TS7016 in node_modules/threadbase/dist.
  it('declares only types its consumers get installed with it', () => {
    const runtime = new Set(Object.keys(pkg.dependencies ?? {}));
    /** The package ships its own types (package.json `types`/`typings`). */
    const typed = (name: string): boolean => {
      const path = join(root, 'node_modules', name, 'package.json');
      if (!existsSync(path)) return false;
      const p = JSON.parse(readFileSync(path, 'utf8')) as { types?: string; typings?: string; exports?: unknown };
      // `types` beside `exports`, or as a condition of the root export (string-width's shape)
      const exp = typeof p.exports === 'object' && p.exports !== null ? (p.exports as Record<string, unknown>) : {};
      const dot = typeof exp['.'] === 'object' && exp['.'] !== null ? (exp['.'] as Record<string, unknown>) : exp;
      return Boolean(p.types ?? p.typings ?? dot.types);
    };
    const wrong: string[] = [];
    for (const f of files.filter((f) => f.startsWith('dist/') && f.endsWith('.d.ts'))) {
      for (const name of bareImports(readFileSync(join(root, f), 'utf8'))) {
        const atTypes = `@types/${name.replace(/^@/, '').replace('/', '__')}`;
        if (!(runtime.has(name) && typed(name)) && !runtime.has(atTypes)) wrong.push(`${f}: ${name}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
