/**
 * Mutations of real agent files for the fuzz tests: each is plain data (so a failing case is kept
 * as a literal regression case) and applies deterministically to the bytes of one file.
 */
import fc from 'fast-check';

export type Mutation =
  | { kind: 'truncate'; at: number }
  | { kind: 'flip'; at: number[]; xor: number }
  | { kind: 'badUtf8'; at: number; bytes: number[] }
  | { kind: 'dropLine'; line: number }
  | { kind: 'dupLine'; line: number }
  | { kind: 'swapLines'; a: number; b: number }
  | { kind: 'garbageLine'; line: number; text: string }
  | { kind: 'value'; line: number; node: number; key: number; value: Replacement }
  | { kind: 'parentCycle'; line: number; a: number; b: number }
  | { kind: 'orphan'; line: number; node: number; id: string }
  | { kind: 'selfParent'; line: number; node: number };

/** What a value is replaced with: wrong types, huge values, deep nesting, odd strings. */
export type Replacement =
  | { type: 'json'; value: unknown }
  | { type: 'hugeString'; bytes: number }
  | { type: 'hugeArray'; length: number }
  | { type: 'deep'; depth: number; open: '[' | '{' }
  | { type: 'loneSurrogate' }
  | { type: 'number'; value: number };

const INVALID_UTF8: number[][] = [
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0x80],
  [0xe2, 0x82],
  [0xf4, 0x90, 0x80, 0x80],
];

const replacementArb: fc.Arbitrary<Replacement> = fc.oneof(
  fc.record({
    type: fc.constant('json' as const),
    value: fc.constantFrom<unknown>(null, true, false, 0, -1, '', [], {}, 'x', [null], { a: 1 }),
  }),
  fc.record({ type: fc.constant('json' as const), value: fc.jsonValue({ maxDepth: 3 }) }),
  fc.record({ type: fc.constant('hugeString' as const), bytes: fc.constantFrom(70_000, 1_100_000, 5_000_000) }),
  fc.record({ type: fc.constant('hugeArray' as const), length: fc.constantFrom(10_000, 200_000) }),
  fc.record({
    type: fc.constant('deep' as const),
    depth: fc.constantFrom(500, 5_000, 100_000),
    open: fc.constantFrom('[' as const, '{' as const),
  }),
  fc.record({ type: fc.constant('loneSurrogate' as const) }),
  fc.record({
    type: fc.constant('number' as const),
    value: fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -0, 1.5, 9.007199254740994e25, 253402300800000, -62135596800001),
  }),
);

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('flip' as const),
    at: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
    xor: fc.integer({ min: 1, max: 255 }),
  }),
  fc.record({ kind: fc.constant('badUtf8' as const), at: fc.nat(), bytes: fc.constantFrom(...INVALID_UTF8) }),
  fc.record({ kind: fc.constant('dropLine' as const), line: fc.nat() }),
  fc.record({ kind: fc.constant('dupLine' as const), line: fc.nat() }),
  fc.record({ kind: fc.constant('swapLines' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant('garbageLine' as const), line: fc.nat(), text: fc.string({ maxLength: 40 }) }),
  fc.record({ kind: fc.constant('value' as const), line: fc.nat(), node: fc.nat(), key: fc.nat(), value: replacementArb }),
  fc.record({ kind: fc.constant('value' as const), line: fc.nat(), node: fc.nat(), key: fc.nat(), value: replacementArb }),
  fc.record({ kind: fc.constant('parentCycle' as const), line: fc.nat(), a: fc.nat(), b: fc.nat() }),
  fc.record({
    kind: fc.constant('orphan' as const),
    line: fc.nat(),
    node: fc.nat(),
    id: fc.constantFrom('missing-parent', '../../etc/passwd', "x' OR 1=1 --", ''),
  }),
  fc.record({ kind: fc.constant('selfParent' as const), line: fc.nat(), node: fc.nat() }),
);

const PARENT_KEYS = ['parentUuid', 'parentId', 'parentID', 'parent_id', 'logicalParentUuid', 'parentToolUseID'];
const ID_KEYS = ['uuid', 'id'];

type JsonObj = Record<string, unknown>;
const isObj = (v: unknown): v is JsonObj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every object in a JSON value, depth first. */
function objectsOf(v: unknown, out: JsonObj[] = []): JsonObj[] {
  if (Array.isArray(v)) for (const x of v) objectsOf(x, out);
  else if (isObj(v)) {
    out.push(v);
    for (const x of Object.values(v)) objectsOf(x, out);
  }
  return out;
}

const PLACEHOLDER = '__TB_FUZZ_PLACEHOLDER__';

function replacementText(r: Replacement): string {
  switch (r.type) {
    case 'json':
      return JSON.stringify(r.value) ?? 'null';
    case 'hugeString':
      return JSON.stringify('x'.repeat(r.bytes));
    case 'hugeArray':
      return `[${Array.from({ length: r.length }, (_, i) => i).join(',')}]`;
    case 'deep':
      return r.open === '['
        ? `${'['.repeat(r.depth)}${']'.repeat(r.depth)}`
        : `${'{"a":'.repeat(r.depth)}1${'}'.repeat(r.depth)}`;
    case 'loneSurrogate':
      return '"\\ud800abc\\udfff"';
    case 'number':
      return Number.isFinite(r.value) ? String(r.value) : '1e400';
  }
}

/** Applies a mutation to one JSON text (a JSONL line or a whole JSON file); undefined when it does not apply. */
function mutateJsonText(text: string, m: Mutation): string | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return undefined;
  }
  const objs = objectsOf(doc);
  if (objs.length === 0) return undefined;
  const pick = (n: number) => objs[n % objs.length] as JsonObj;
  switch (m.kind) {
    case 'value': {
      const o = pick(m.node);
      const keys = Object.keys(o);
      if (keys.length === 0) return undefined;
      o[keys[m.key % keys.length] as string] = PLACEHOLDER;
      return JSON.stringify(doc).replace(JSON.stringify(PLACEHOLDER), replacementText(m.value));
    }
    case 'orphan':
    case 'selfParent': {
      const withParent = objs.filter((o) => PARENT_KEYS.some((k) => k in o));
      if (withParent.length === 0) return undefined;
      const o = withParent[m.node % withParent.length] as JsonObj;
      const key = PARENT_KEYS.find((k) => k in o) as string;
      const own = ID_KEYS.map((k) => o[k]).find((v) => typeof v === 'string');
      o[key] = m.kind === 'orphan' ? m.id : (own ?? 'self');
      return JSON.stringify(doc);
    }
    case 'parentCycle': {
      // Two records of one document (e.g. OpenCode messages of an export) made each other's parent.
      const nodes = objs.filter((o) => PARENT_KEYS.some((k) => k in o) && ID_KEYS.some((k) => typeof o[k] === 'string'));
      if (nodes.length < 2) return undefined;
      const a = nodes[m.a % nodes.length] as JsonObj;
      const b = nodes[(m.a + 1 + (m.b % (nodes.length - 1))) % nodes.length] as JsonObj;
      const idOf = (o: JsonObj) => ID_KEYS.map((k) => o[k]).find((v) => typeof v === 'string') as string;
      a[PARENT_KEYS.find((k) => k in a) as string] = idOf(b);
      b[PARENT_KEYS.find((k) => k in b) as string] = idOf(a);
      return JSON.stringify(doc);
    }
    default:
      return undefined;
  }
}

/** Splits into lines keeping a final unterminated line. */
function linesOf(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export interface Mutated {
  bytes: Buffer;
  /** 1-based lines of a JSONL file the mutation touched (undefined: not line-scoped) */
  lines?: number[];
}

/**
 * Applies a mutation. `jsonl`: the file is JSON lines (line mutations pick a line); else one JSON
 * document (line mutations fall back to byte mutations). Mutations that do not apply to this file
 * fall back to a byte flip so every case changes something.
 */
export function applyMutation(original: Buffer, m: Mutation, jsonl: boolean): Mutated {
  const len = original.length;
  const flipAt = (positions: number[], xor: number): Mutated => {
    const b = Buffer.from(original);
    if (len === 0) return { bytes: Buffer.from([xor]) };
    for (const p of positions) b[p % len] = (b[p % len] as number) ^ xor;
    return { bytes: b };
  };
  switch (m.kind) {
    case 'truncate':
      return { bytes: original.subarray(0, len === 0 ? 0 : m.at % len) };
    case 'flip':
      return flipAt(m.at, m.xor);
    case 'badUtf8': {
      const at = len === 0 ? 0 : m.at % len;
      return { bytes: Buffer.concat([original.subarray(0, at), Buffer.from(m.bytes), original.subarray(at)]) };
    }
    default:
      break;
  }
  const text = original.toString('utf8');
  if (!jsonl) {
    if (m.kind === 'value' || m.kind === 'orphan' || m.kind === 'selfParent' || m.kind === 'parentCycle') {
      const out = mutateJsonText(text, m);
      if (out !== undefined) return { bytes: Buffer.from(out) };
    }
    return flipAt([m.kind === 'swapLines' ? m.a : 'line' in m ? m.line : 0], 0x20);
  }
  const lines = linesOf(text);
  if (lines.length === 0) return flipAt([0], 0x20);
  const n = lines.length;
  const i = ('line' in m ? m.line : 0) % n;
  const out = [...lines];
  let touched: number[] = [i + 1];
  switch (m.kind) {
    case 'dropLine':
      out.splice(i, 1);
      break;
    case 'dupLine':
      out.splice(i, 0, lines[i] as string);
      break;
    case 'swapLines': {
      const a = m.a % n;
      const b = m.b % n;
      out[a] = lines[b] as string;
      out[b] = lines[a] as string;
      touched = [a + 1, b + 1];
      break;
    }
    case 'garbageLine':
      out[i] = m.text.replace(/\n/g, ' ');
      break;
    case 'parentCycle': {
      // Records on two lines made each other's parent.
      const recs = lines.map((l) => {
        try {
          const v: unknown = JSON.parse(l);
          return isObj(v) && PARENT_KEYS.some((k) => k in v) && ID_KEYS.some((k) => typeof v[k] === 'string') ? v : undefined;
        } catch {
          return undefined;
        }
      });
      const idx = recs.flatMap((r, k) => (r ? [k] : []));
      if (idx.length < 2) return flipAt([m.a], 0x20);
      const ka = idx[m.a % idx.length] as number;
      const kb = idx[(m.a + 1 + (m.b % (idx.length - 1))) % idx.length] as number;
      const ra = recs[ka] as JsonObj;
      const rb = recs[kb] as JsonObj;
      const idOf = (o: JsonObj) => ID_KEYS.map((k) => o[k]).find((v) => typeof v === 'string') as string;
      ra[PARENT_KEYS.find((k) => k in ra) as string] = idOf(rb);
      rb[PARENT_KEYS.find((k) => k in rb) as string] = idOf(ra);
      out[ka] = JSON.stringify(ra);
      out[kb] = JSON.stringify(rb);
      touched = [ka + 1, kb + 1];
      break;
    }
    default: {
      const changed = mutateJsonText(lines[i] as string, m);
      if (changed === undefined) return flipAt([i], 0x20);
      out[i] = changed;
    }
  }
  const ended = text.endsWith('\n');
  return { bytes: Buffer.from(out.join('\n') + (ended ? '\n' : '')), lines: touched };
}
