// DOM helpers: every string goes in as text (textContent), never as HTML.

/** h('div', {class: 'x', onclick: fn}, 'text', child, [more]) */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'text') el.textContent = v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/**
 * What did not load, said where it would have been, with a button that tries again (the box goes
 * first): a failed request otherwise reached the console only, and the place stayed empty.
 */
export function retryBox(what, err, retry, place = '') {
  const box = h(
    'div',
    { class: `load-error ${place}`.trim(), role: 'alert' },
    `${what}: ${String(err?.message ?? err)}. `,
    h(
      'button',
      {
        type: 'button',
        class: 'link-button',
        onclick: () => {
          box.remove();
          retry();
        },
      },
      'Try again',
    ),
  );
  return box;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
export function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs ?? {})) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const TOKEN = /[\p{L}\p{N}]+/gu;
const fold = (t) => t.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * The words of a search query as the stores match them (letters and digits, case folded). No word is
 * an operator (src/stores/search-text.ts): `or`, `not` and `near` are found and marked like any other.
 */
export function queryTerms(query) {
  const words = String(query ?? '').match(TOKEN) ?? [];
  return new Set(words.map(fold));
}

/**
 * A search snippet with the query's hits wrapped in <mark>, built from text nodes. Stores mark hits
 * themselves, and know tokens better than we do: every store with [brackets] around a matched token
 * (only brackets around a query word count: code has brackets of its own), a server of an older
 * threadbase over PostgreSQL with «…» (its ts_headline). Elsewhere every token equal to a query word
 * is marked.
 */
export function highlighted(text, query) {
  const frag = document.createDocumentFragment();
  const mark = (s) => frag.append(h('mark', {}, s));
  if (/«[^«»]*»/.test(text)) {
    for (const piece of text.split(/(«[^«»]*»)/)) {
      if (!piece) continue;
      if (piece.startsWith('«') && piece.endsWith('»')) mark(piece.slice(1, -1));
      else frag.append(piece);
    }
    return frag;
  }
  const terms = queryTerms(query);
  if (!terms.size) {
    frag.append(text);
    return frag;
  }
  let last = 0;
  for (const m of text.matchAll(/\[([\p{L}\p{N}]+)\]|[\p{L}\p{N}]+/gu)) {
    const word = m[1] ?? m[0];
    if (!terms.has(fold(word))) continue;
    if (m.index > last) frag.append(text.slice(last, m.index));
    mark(word);
    last = m.index + m[0].length;
  }
  if (last < text.length) frag.append(text.slice(last));
  return frag;
}

export function fmtTokens(n) {
  if (n === null || n === undefined) return '';
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e4) return `${Math.round(n / 1e3)}k`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

export function fmtCost(c) {
  if (c === null || c === undefined) return '';
  if (c === 0) return '$0';
  if (c < 0.01) return `$${c.toFixed(4)}`;
  return `$${c.toFixed(2)}`;
}

/**
 * A day the page's date fields hold (YYYY-MM-DD) as an instant of this browser's own day: its first
 * millisecond, or with `end` its last, so From and To are the reader's days, not UTC's. Anything else
 * is sent as given (the API takes any ISO date or time, and refuses what names none).
 */
export function localDayBound(day, end = false) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day ?? '');
  if (!m) return day;
  const next = new Date(0);
  // setFullYear, not new Date(y, m, d): that reads years 0-99 as 1900-1999
  next.setFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + (end ? 1 : 0));
  next.setHours(0, 0, 0, 0);
  return new Date(next.getTime() - (end ? 1 : 0)).toISOString();
}

export function fmtTime(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export function shortPath(p) {
  if (!p) return '';
  const parts = p.split('/').filter(Boolean);
  return parts.length > 2 ? `…/${parts.slice(-2).join('/')}` : p;
}

/** How many characters `a` and `b` start with alike. */
function commonStart(a, b) {
  let c = 0;
  while (c < a.length && c < b.length && a[c] === b[c]) c++;
  return c;
}

/**
 * `other` shortened to tell it apart from `id`: its first 8 characters, or as many more as it shares
 * with `id` and 4 past them (UUIDv7 ids made in the same minute share their first 8: a fork's parent
 * read 'from 01a21356' on a session whose own id starts 01a21356).
 */
export function shortIdBeside(other, id) {
  const n = Math.max(8, commonStart(other, id) + 4);
  return n >= other.length ? other : `${other.slice(0, n)}…`;
}

/**
 * Each of `ids` cut to its first 12 characters, or to 4 past what it shares with another of them
 * (sessions made the same second share a long start: OpenCode's ses_…, UUIDv7s), with '…' where cut,
 * so a cut id is seen to be one and two ids never read alike. By id.
 */
export function shortIds(ids) {
  const distinct = [...new Set(ids)].sort();
  const out = new Map();
  distinct.forEach((id, i) => {
    // in sorted order the longest shared start is with a neighbour
    const common = Math.max(commonStart(distinct[i - 1] ?? '', id), commonStart(distinct[i + 1] ?? '', id));
    const n = Math.max(12, common + 4);
    out.set(id, n >= id.length ? id : `${id.slice(0, n)}…`);
  });
  return out;
}
