/**
 * storeKindOf is the one list of store URL kinds: openStore opens by it, and the CLI's store options
 * (`--from`, `ui --store`: checkStoreOption; `serve --db`, `token --db`: dbOption) accept by it. `--db`
 * kept a list of its own that took `postgres:x`, `memory:x` and `SQLITE:/x`, none of which the server
 * opens as such: each was made as a SQLite file of that name (a folder `SQLITE:`) in the current directory.
 */
import { describe, expect, it } from 'vitest';
import { checkStoreOption, dbOption } from '../../src/cli/options.js';
import { openStore, storeKindOf } from '../../src/stores/open.js';

const kinds: [string, ReturnType<typeof storeKindOf>][] = [
  ['memory:', 'memory'],
  ['memory', 'memory'],
  ['sqlite:/x/index.db', 'sqlite'],
  ['sqlite:///x/index.db', 'sqlite'],
  ['file:/x/index.db', 'sqlite'],
  ['/x/index.db', 'sqlite'],
  ['./index.db', 'sqlite'],
  ['./a:b', 'sqlite'],
  ['../a.db', 'sqlite'],
  ['postgres://u@127.0.0.1/db', 'postgres'],
  ['postgresql://127.0.0.1/db', 'postgres'],
  ['http://127.0.0.1:8029', 'remote'],
  ['https://KEY@threads.example.com/api/v1', 'remote'],
  // refused: a mistyped scheme, a scheme in capitals, a URL of another kind, a bare name
  ['sqlit:/x', undefined],
  ['postgress://u@127.0.0.1/db', undefined],
  ['postgres:db', undefined],
  ['memory:x', undefined],
  ['SQLITE:/x', undefined],
  ['HTTPS://threads.example.com', undefined],
  ['ftp://example.com', undefined],
  ['C:\\Users\\me\\index.db', undefined],
  ['C:/Users/me/index.db', undefined],
  ['index.db', undefined],
  ['a:b', undefined],
  ['', undefined],
];

describe('storeKindOf', () => {
  it.each(kinds)('%j is %s', (url, kind) => {
    expect(storeKindOf(url)).toBe(kind);
  });

  it.each([
    ['index.db', 'sqlite'],
    ['C:\\Users\\me\\index.db', 'sqlite'],
    ['C:/Users/me/index.db', 'sqlite'],
    ['a:b', undefined],
    ['sqlit:/x', undefined],
    ['SQLITE:/x', undefined],
    ['postgres:db', undefined],
  ] as const)('with fileNames (as --db takes it) %j is %s', (url, kind) => {
    expect(storeKindOf(url, { fileNames: true })).toBe(kind);
  });
});

describe('the store options go by storeKindOf', () => {
  it.each(kinds)('--db %j: taken as openStore takes it (remote aside, a bare file name too)', (url, kind) => {
    const taken = (kind !== undefined && kind !== 'remote') || /^(index\.db|C:.*)$/.test(url) || url === '';
    if (taken) expect(dbOption(url)).toBe(url);
    else expect(() => dbOption(url)).toThrow(/Not a database threadbase opens/);
  });

  it.each(kinds)('--from %j: refused when openStore would refuse it', (url, kind) => {
    if (kind === undefined) expect(() => checkStoreOption('--from', url)).toThrow(/not a store URL/);
    // a SQLite file is checked to be there too (test/cli/store-files.test.ts)
    else if (kind !== 'sqlite') expect(() => checkStoreOption('--from', url)).not.toThrow();
  });

  // '' is no URL but none given: the local store
  it.each(kinds.filter(([url, kind]) => kind === undefined && url !== ''))('openStore(%j) refuses it', async (url) => {
    await expect(openStore(url)).rejects.toThrow(/not a store URL/);
  });
});
