/**
 * The model is the first layer (DESIGN.md: each layer uses only those above it): nothing in
 * src/model names a module outside it, not even for a type (the driver interface's price table
 * shapes live in src/model/prices.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const MODEL_DIR = join(__dirname, '../../src/model');

/** Every module specifier a file imports or re-exports from, type-only ones included. */
function specifiers(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+['"]([^'"]+)['"]/g)) out.push(m[1] ?? '');
  for (const m of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1] ?? '');
  return out;
}

describe('src/model', () => {
  const files = readdirSync(MODEL_DIR).filter((f) => f.endsWith('.ts'));

  it('finds the imports it checks (driver.ts names its price types)', () => {
    expect(files).toContain('driver.ts');
    expect(specifiers(readFileSync(join(MODEL_DIR, 'driver.ts'), 'utf8'))).toContain('./prices.js');
  });

  it.each(files)('%s imports nothing outside src/model', (file) => {
    const outside = specifiers(readFileSync(join(MODEL_DIR, file), 'utf8')).filter((s) => s.startsWith('..'));
    expect(outside).toEqual([]);
  });
});
