// Charts as inline SVG: tokens and cost per day, and horizontal bars per model, project, agent.
import { fmtCost, fmtTokens, h, svg } from './util.js';

const SERIES = [
  { key: 'input', label: 'input', cls: 's-input' },
  { key: 'output', label: 'output', cls: 's-output' },
  { key: 'cacheRead', label: 'cache read', cls: 's-cache-read' },
  { key: 'cacheWrite', label: 'cache write', cls: 's-cache-write' },
];

const tokensOf = (b) => b.input + b.output + b.cacheRead + b.cacheWrite;

function niceMax(v) {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function legend() {
  return h(
    'div',
    { class: 'legend' },
    SERIES.map((s) => h('span', {}, h('i', { class: `swatch ${s.cls}` }), s.label)),
    h('span', {}, h('i', { class: 'swatch s-cost' }), 'cost'),
  );
}

/** A round tick step of at least v: 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten. */
function niceStep(v) {
  if (v <= 0) return 0.25;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * p >= v - 1e-12) return m * p;
  return 10 * p;
}

/** Axis money: as many decimals as the step between ticks needs ($0.0025 steps show 4). */
function costTick(value, step) {
  let decimals = step >= 10 ? 0 : 2;
  while (decimals < 6 && Math.abs(step * 10 ** decimals - Math.round(step * 10 ** decimals)) > 1e-6) decimals++;
  return `$${value.toFixed(decimals)}`;
}

/** Axis tokens: exact to the tick (12,500 is 12.5k, where fmtTokens rounds it to 13k for a list). */
function tokenTick(v) {
  for (const [unit, suffix] of [
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'k'],
  ])
    if (v >= unit) return `${Number((v / unit).toFixed(3))}${suffix}`;
  return String(Number(v.toFixed(2)));
}

const DAY_MS = 86_400_000;

/** Days without usage between the first and the last get an empty slot, so the axis is time. */
function withEmptyDays(byDay) {
  if (byDay.length < 2 || !byDay.every((b) => /^\d{4}-\d{2}-\d{2}$/.test(b.key))) return byDay;
  const first = Date.parse(`${byDay[0].key}T00:00:00Z`);
  const last = Date.parse(`${byDay[byDay.length - 1].key}T00:00:00Z`);
  if ((last - first) / DAY_MS > 366) return byDay;
  const have = new Map(byDay.map((b) => [b.key, b]));
  const out = [];
  for (let t = first; t <= last; t += DAY_MS) {
    const key = new Date(t).toISOString().slice(0, 10);
    out.push(have.get(key) ?? { key, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0, responses: 0 });
  }
  return out;
}

/**
 * Stacked token bars per day with the day's cost as a line on the right axis. `zone`: the days are
 * another time zone's than the reader's (UTC's, for a browser that names none): the caption says whose.
 */
export function timeChart(recorded, { zone } = {}) {
  const byDay = withEmptyDays(recorded);
  const W = 960;
  const H = 240;
  const pad = { l: 56, r: 56, t: 12, b: 36 };
  const iw = W - pad.l - pad.r;
  const ih = H - pad.t - pad.b;
  const maxT = niceMax(Math.max(0, ...byDay.map(tokensOf)));
  // four round steps of money on the right axis
  const maxC = 4 * niceStep(Math.max(0, ...byDay.map((b) => b.cost)) / 4);
  const n = Math.max(1, byDay.length);
  const slot = iw / n;
  const bw = Math.max(2, Math.min(40, slot * 0.7));
  const root = svg('svg', {
    viewBox: `0 0 ${W} ${H}`,
    class: 'chart time-chart',
    role: 'img',
    'aria-label': 'tokens and cost per day',
  });
  for (let i = 0; i <= 4; i++) {
    const y = pad.t + ih - (ih * i) / 4;
    root.append(svg('line', { x1: pad.l, x2: W - pad.r, y1: y, y2: y, class: 'grid' }));
    root.append(svg('text', { x: pad.l - 6, y: y + 4, class: 'axis', 'text-anchor': 'end' }, tokenTick((maxT * i) / 4)));
    root.append(svg('text', { x: W - pad.r + 6, y: y + 4, class: 'axis cost-axis' }, costTick((maxC * i) / 4, maxC / 4)));
  }
  const labelEvery = Math.ceil(n / 12);
  // days of more than one year are labelled with it: '01-01' then '02-01' read as one January a month before
  const years = new Set(byDay.map((b) => b.key.slice(0, 4)));
  const dayLabel = (key) => (years.size > 1 ? key : key.slice(5));
  const points = [];
  byDay.forEach((b, i) => {
    const x = pad.l + slot * i + (slot - bw) / 2;
    let y = pad.t + ih;
    for (const s of SERIES) {
      const hgt = (ih * b[s.key]) / maxT;
      if (hgt > 0) {
        y -= hgt;
        root.append(
          svg(
            'rect',
            { x, y, width: bw, height: hgt, class: `bar ${s.cls}` },
            svg('title', {}, `${b.key} · ${s.label}: ${b[s.key].toLocaleString()} tokens`),
          ),
        );
      }
    }
    if (i % labelEvery === 0)
      root.append(svg('text', { x: x + bw / 2, y: H - pad.b + 16, class: 'axis', 'text-anchor': 'middle' }, dayLabel(b.key)));
    points.push([x + bw / 2, pad.t + ih - (ih * b.cost) / maxC, b]);
  });
  if (points.length > 1)
    root.append(svg('polyline', { points: points.map((p) => `${p[0]},${p[1]}`).join(' '), class: 'cost-line' }));
  for (const [x, y, b] of points)
    root.append(svg('circle', { cx: x, cy: y, r: 3, class: 'cost-dot' }, svg('title', {}, `${b.key} · cost ${fmtCost(b.cost)}`)));
  if (!byDay.length)
    root.append(svg('text', { x: W / 2, y: H / 2, class: 'axis', 'text-anchor': 'middle' }, 'no usage recorded'));
  return h(
    'figure',
    { class: 'chart-box' },
    h('figcaption', {}, zone ? `Tokens and cost per day (${zone} days)` : 'Tokens and cost per day'),
    root,
    legend(),
  );
}

/** Characters of a label that fit in the label column (12px text in labelW, wide letters included). */
const LABEL_CHARS = 20;

/**
 * One horizontal bar per bucket (tokens stacked by kind), with the cost at the end. A label too long
 * for its column is cut at its end (`cut: 'end'`, for names: a model's family is at its start) or at
 * its start (`cut: 'start'`, for paths: a project's name is at its end); the whole key is its tooltip.
 */
export function barChart(title, buckets, { limit = 12, cut = 'start' } = {}) {
  const rows = buckets.slice(0, limit);
  const W = 460;
  const rowH = 24;
  const labelW = 160;
  const costW = 96;
  const H = Math.max(1, rows.length) * rowH + 8;
  const maxT = Math.max(1, ...rows.map(tokensOf));
  const iw = W - labelW - costW - 8;
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart bar-chart', role: 'img', 'aria-label': title });
  rows.forEach((b, i) => {
    const y = 4 + i * rowH;
    const chars = [...b.key];
    const label =
      chars.length <= LABEL_CHARS
        ? b.key
        : cut === 'end'
          ? `${chars.slice(0, LABEL_CHARS - 1).join('')}…`
          : `…${chars.slice(-(LABEL_CHARS - 1)).join('')}`;
    root.append(
      svg(
        'g',
        {},
        svg('title', {}, b.key),
        svg('text', { x: labelW - 8, y: y + rowH / 2 + 4, class: 'label', 'text-anchor': 'end' }, label),
      ),
    );
    let x = labelW;
    for (const s of SERIES) {
      const w = (iw * b[s.key]) / maxT;
      if (w > 0) {
        root.append(
          svg(
            'rect',
            { x, y: y + 4, width: w, height: rowH - 8, class: `bar ${s.cls}` },
            svg('title', {}, `${b.key} · ${s.label}: ${b[s.key].toLocaleString()}`),
          ),
        );
        x += w;
      }
    }
    root.append(svg('text', { x: x + 6, y: y + rowH / 2 + 4, class: 'axis' }, `${fmtTokens(tokensOf(b))} · ${fmtCost(b.cost)}`));
  });
  if (!rows.length) root.append(svg('text', { x: W / 2, y: 20, class: 'axis', 'text-anchor': 'middle' }, 'nothing yet'));
  return h('figure', { class: 'chart-box' }, h('figcaption', {}, title), root);
}
