/**
 * `threadbase export`: a session as one self-contained HTML page (turns, collapsible tool calls
 * with their input and output, thinking, images, the branch tree, usage), as Markdown, or as the
 * model's JSON.
 */
import escapeHtml from 'escape-html';
import { drawTree } from '../cli/tree-view.js';
import { messageToMarkdown } from '../convert/markdown.js';
import { isProviderExecuted, PROVIDER_RAN } from '../convert/provider-tools.js';
import type { ChildSessions } from '../convert/session.js';
import { injectedLabel } from '../formats/injected.js';
import { prefixOf } from '../model/text.js';
import { branches, currentLeaf, pathToLeaf, withoutRepeatedSettings } from '../model/tree.js';
import {
  type Entry,
  type Message,
  type Part,
  type Session,
  type ToolResultPart,
  totalTokens,
  type Usage,
} from '../model/types.js';
import { summarizeUsage } from '../model/usage.js';
import { PRICES, PRICES_DATE, type PriceTable, usageCostByModel } from '../stores/index-sync/prices.js';
import { readableJson } from './readable-json.js';

export { readableJson };

export type ExportFormat = 'html' | 'md' | 'json';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['html', 'md', 'json'];

/** A sub-agent session shown under the call that ran it, with the sub-agents it ran in turn. */
export interface SubAgentSession {
  session: Session;
  subAgents: ReadonlyMap<string, SubAgentSession>;
}

export interface ExportOptions {
  /** prices for responses whose agent recorded no cost (default the bundled table, as `stats` uses) */
  prices?: PriceTable;
  /** the HTML page's sub-agent sessions by the id of the call that ran each (see subAgentsOf) */
  subAgents?: ReadonlyMap<string, SubAgentSession>;
}

/**
 * The sub-agent sessions of `session` and theirs, by the call that ran each, as `childrenOf` finds
 * them (the store the session was read from): the HTML page shows each under its call, so the work a
 * sub-agent did is in the page. A session met twice (a store's loop) is shown once.
 */
export async function subAgentsOf(
  session: Session,
  childrenOf: ChildSessions,
  seen: Set<string> = new Set([session.id]),
): Promise<Map<string, SubAgentSession>> {
  const out = new Map<string, SubAgentSession>();
  for (const child of await childrenOf(session.id)) {
    if (child.parentToolCallId === undefined || seen.has(child.id) || out.has(child.parentToolCallId)) continue;
    seen.add(child.id);
    out.set(child.parentToolCallId, { session: child, subAgents: await subAgentsOf(child, childrenOf, seen) });
  }
  return out;
}

export function exportSession(session: Session, format: ExportFormat, opts: ExportOptions = {}): string {
  if (format === 'json') return `${JSON.stringify(session, null, 2)}\n`;
  if (format === 'md') return sessionToMarkdown(session, opts);
  return sessionToHtml(session, opts);
}

/** What a session cost, per model and in all, as `threadbase stats` counts it. */
function costSummary(s: Session, prices: PriceTable) {
  const byModel = usageCostByModel(s.entries, prices);
  const priced = byModel.filter((m) => m.cost !== null);
  return {
    byModel,
    cost: priced.length ? priced.reduce((n, m) => n + (m.cost ?? 0), 0) : null,
    estimated: byModel.some((m) => m.estimated),
    /** models with tokens and no price: left out of the cost */
    unpriced: byModel.filter((m) => m.cost === null && totalTokens(m.usage) > 0).map((m) => m.model || '(unknown model)'),
  };
}

const costText = (cost: number | null, estimated: boolean) =>
  cost === null ? '—' : `${estimated ? '≈' : ''}$${cost.toFixed(4)}`;

const ESTIMATE_NOTE = `≈: priced from tokens with the price table of ${PRICES_DATE} (the agent recorded no cost)`;

/** A model change in words: a change of the thinking level alone (pi writes them apart) is no model '?'. */
function modelChangeText(e: Extract<Entry, { kind: 'model_change' }>): string {
  const said = [
    e.model ? `model changed to ${e.model}` : e.provider ? `provider changed to ${e.provider}` : '',
    e.thinkingLevel ? `thinking level ${e.thinkingLevel}` : '',
  ].filter(Boolean);
  return said.join(', ') || 'model changed';
}

function entryText(e: Entry): string | undefined {
  switch (e.kind) {
    case 'compaction':
      return `**Compaction summary**${e.tokensBefore ? ` (${e.tokensBefore} tokens before)` : ''}\n\n${e.summary}`;
    case 'branch_summary':
      return `**Branch summary**\n\n${e.summary}`;
    case 'model_change':
      return `_${modelChangeText(e)}_`;
    default:
      return undefined;
  }
}

export function sessionToMarkdown(s: Session, opts: ExportOptions = {}): string {
  const u = summarizeUsage(s.entries);
  const c = costSummary(s, opts.prices ?? PRICES);
  const head = [
    `# ${s.title ?? `Session ${s.id}`}`,
    '',
    `- source: ${s.source}`,
    `- id: ${s.id}`,
    ...(s.project ? [`- project: ${s.project}`] : []),
    `- created: ${s.createdAt}`,
    `- updated: ${s.updatedAt}`,
    ...(u.models.length ? [`- models: ${u.models.join(', ')}`] : []),
    `- tokens: input ${u.usage.input}, output ${u.usage.output}, cache read ${u.usage.cacheRead}, cache write ${u.usage.cacheWrite}${c.cost !== null ? `; cost ${costText(c.cost, c.estimated)}` : ''}`,
    ...(c.byModel.length > 1
      ? c.byModel.map(
          (m) =>
            `  - ${m.model || '(unknown model)'}: input ${m.usage.input}, output ${m.usage.output}, cache read ${m.usage.cacheRead}, cache write ${m.usage.cacheWrite}; cost ${costText(m.cost, m.estimated)}`,
        )
      : []),
    ...(c.estimated ? [`- ${ESTIMATE_NOTE}`] : []),
    ...(c.unpriced.length ? [`- not in the cost (no price known): ${c.unpriced.join(', ')}`] : []),
    '',
  ];
  const body: string[] = [];
  for (const e of withoutRepeatedSettings(pathToLeaf(s))) {
    if (e.kind === 'message') body.push(messageToMarkdown(e.message));
    else {
      const t = entryText(e);
      if (t) body.push(`${t}\n`);
    }
  }
  const bs = branches(s);
  const tree = bs.length > 1 ? ['', '## Branches', '', '```', drawTree(s), '```', ''] : [];
  return `${[...head, ...body].join('\n')}${tree.join('\n')}\n`;
}

const esc = (s: string) => escapeHtml(s);

/** Tool output text: JSON with multi-line strings readable, with the text as recorded folded below it. */
function outputHtml(text: string): string {
  const readable = readableJson(text);
  return readable === undefined
    ? `<pre>${esc(text)}</pre>`
    : `<pre>${esc(readable)}</pre><details class="as-recorded"><summary>as recorded (JSON)</summary><pre>${esc(text)}</pre></details>`;
}

function resultBody(r: ToolResultPart): string {
  if (typeof r.content === 'string') return outputHtml(r.content);
  return r.content
    .map((c) =>
      c.type === 'text'
        ? outputHtml(c.text)
        : c.type === 'image' && c.data
          ? `<img alt="tool image" src="data:${esc(c.mediaType)};base64,${esc(c.data)}">`
          : `<p class="dim">[${esc(c.type)} ${esc(c.mediaType)}]</p>`,
    )
    .join('');
}

/** What rendering one session's turns needs: its results by call id, those shown with their call, its sub-agents. */
interface TurnsContext {
  results: Map<string, ToolResultPart>;
  shown: Set<ToolResultPart>;
  subAgents: ReadonlyMap<string, SubAgentSession>;
}

/** A sub-agent's session folded under the call that ran it: its turns, and its own sub-agents under its calls. */
function subAgentHtml(sub: SubAgentSession): string {
  const s = sub.session;
  const turns = turnsHtml(s, sub.subAgents);
  return `<details class="sub-agent"><summary>Sub-agent session: <strong>${esc(s.title ?? s.id)}</strong> <span class="dim">${esc(s.source)} · ${esc(s.id)} · ${turns.length} turns</span></summary><div class="sub-agent-turns">${turns.join('\n')}</div></details>`;
}

function partHtml(p: Part, ctx: TurnsContext): string {
  const { results, shown } = ctx;
  switch (p.type) {
    case 'text':
      // text the agent added to the user's turn (OpenCode's and Kilo's synthetic parts), folded as the viewer folds it
      return p.meta?.synthetic === true
        ? `<details class="injected synthetic"><summary>added by the agent · ${p.text.length.toLocaleString('en-US')} characters</summary><div class="text">${esc(p.text)}</div></details>`
        : `<div class="text">${esc(p.text)}</div>`;
    case 'thinking':
      return `<details class="thinking"><summary>Thinking</summary><div class="text">${esc(p.thinking)}</div></details>`;
    case 'redacted_thinking':
      return '<p class="dim">(redacted thinking)</p>';
    case 'image':
      return p.data
        ? `<img alt="image" src="data:${esc(p.mediaType)};base64,${esc(p.data)}">`
        : `<img alt="image" src="${esc(p.url ?? '')}">`;
    case 'file':
      return `<details class="file"><summary>📎 ${esc(p.name ?? 'file')} <span class="dim">${esc(p.mediaType)}</span></summary>${p.text ? `<pre>${esc(p.text)}</pre>` : ''}</details>`;
    case 'tool_call': {
      const r = results.get(p.id);
      if (r) shown.add(r);
      const sub = ctx.subAgents.get(p.id);
      // the first string argument, past a `type` that only names the kind of call (codex's web search actions)
      const summaryArg = Object.entries(p.input).find(([k, v]) => k !== 'type' && typeof v === 'string')?.[1] as
        | string
        | undefined;
      return `<details class="tool${r?.isError ? ' error' : ''}"><summary><span class="tool-name">${esc(p.name)}</span> <span class="dim">${esc(prefixOf(summaryArg ?? '', 120))}</span>${r ? '' : ` <span class="dim">(${isProviderExecuted(p) ? PROVIDER_RAN : 'no result'})</span>`}</summary>
<div class="io"><h4>Input</h4><pre>${esc(JSON.stringify(p.input, null, 2))}</pre>${r ? `<h4>Output${r.isError ? ' (error)' : ''}</h4>${resultBody(r)}` : ''}</div></details>${sub ? subAgentHtml(sub) : ''}`;
    }
    case 'tool_result':
      if (shown.has(p)) return '';
      return `<details class="tool"><summary>Result of <span class="dim">${esc(p.callId)}</span></summary><div class="io">${resultBody(p)}</div></details>`;
  }
}

function messageHtml(m: Message, ts: string, ctx: TurnsContext): string {
  const parts = m.parts.map((p) => partHtml(p, ctx)).join('');
  if (!parts.trim()) return '';
  const u = m.usage;
  const meta = [
    m.model ? esc(m.model) : '',
    u ? `${u.input} in · ${u.output} out${u.cacheRead ? ` · ${u.cacheRead} cached` : ''}` : '',
    m.cost !== undefined ? `$${m.cost.toFixed(4)}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  // what the agent wrote itself (its instructions, the environment, a notification): folded under its name, as the viewer shows it
  const injected = m.meta?.compactionSummary || m.meta?.branchSummary ? undefined : injectedLabel(m);
  const chars = m.parts.reduce((n, p) => n + (p.type === 'text' ? p.text.length : 0), 0);
  const body = injected
    ? `<details class="injected"><summary>${esc(injected)} · ${chars.toLocaleString('en-US')} characters</summary>${parts}</details>`
    : parts;
  return `<section class="turn ${m.role}${injected ? ' injected' : ''}"><header><span class="role">${m.role}</span><time>${esc(ts.replace('T', ' ').slice(0, 19))}</time>${meta ? `<span class="meta">${meta}</span>` : ''}</header>${body}${m.error ? `<p class="err">${esc(m.error)}</p>` : ''}</section>`;
}

const CSS = `
:root{--bg:#fbfaf7;--fg:#1f2328;--dim:#6b7280;--user:#e8f0fe;--asst:#fff;--tool:#f6f8fa;--line:#e5e7eb;--accent:#7c3aed}
@media (prefers-color-scheme:dark){:root{--bg:#0f1115;--fg:#e6e6e6;--dim:#9aa0a6;--user:#1b2433;--asst:#161a20;--tool:#12161b;--line:#2a2f37}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.55 system-ui,-apple-system,Segoe UI,sans-serif}
main{max-width:860px;margin:0 auto;padding:32px 20px 80px}h1{font-size:1.5rem;margin:0 0 4px}
.facts{color:var(--dim);font-size:.85rem;margin-bottom:24px}.facts span{margin-right:14px}
.turn{border:1px solid var(--line);border-radius:10px;padding:12px 16px;margin:14px 0;background:var(--asst)}
.turn.user{background:var(--user)}.turn.tool{background:var(--tool)}
.turn header{display:flex;gap:12px;align-items:baseline;font-size:.8rem;color:var(--dim);margin-bottom:6px}
.role{font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:var(--accent)}.meta{margin-left:auto}
.text{white-space:pre-wrap;overflow-wrap:anywhere}pre{background:rgba(127,127,127,.08);padding:10px;border-radius:6px;overflow:auto;max-height:480px;font-size:.82rem}
details{margin:8px 0;border-left:3px solid var(--line);padding-left:10px}details.tool.error{border-color:#dc2626}
summary{cursor:pointer;color:var(--dim)}.tool-name{font-family:ui-monospace,monospace;color:var(--fg);font-weight:600}
h4{margin:8px 0 4px;font-size:.75rem;text-transform:uppercase;color:var(--dim)}.dim{color:var(--dim)}
/* an image of a few pixels (a 1×1 an agent read or drew) at 48 px at least, not a dot nobody sees */
img{max-width:100%;min-width:48px;height:auto;border-radius:6px;border:1px solid var(--line)}.err{color:#dc2626}
details.injected>summary{font-style:italic}details.sub-agent{border-left-color:var(--accent)}.sub-agent-turns .turn{margin:10px 0}.summary{border-style:dashed}table{border-collapse:collapse;font-size:.85rem;margin:8px 0}td,th{padding:3px 10px;border-bottom:1px solid var(--line);text-align:right}th:first-child,td:first-child{text-align:left}
`;

/** The turns of a session's path to its current leaf, as HTML sections (empty messages left out). */
function turnsHtml(s: Session, subAgents: ReadonlyMap<string, SubAgentSession>): string[] {
  const path = withoutRepeatedSettings(pathToLeaf(s));
  const results = new Map<string, ToolResultPart>();
  for (const e of path)
    if (e.kind === 'message') for (const p of e.message.parts) if (p.type === 'tool_result') results.set(p.callId, p);
  const ctx: TurnsContext = { results, shown: new Set(), subAgents };
  const turns: string[] = [];
  for (const e of path) {
    if (e.kind === 'message') {
      const html = messageHtml(e.message, e.timestamp, ctx);
      if (html) turns.push(html);
    } else if (e.kind === 'compaction' || e.kind === 'branch_summary')
      turns.push(
        `<section class="turn summary"><header><span class="role">${e.kind === 'compaction' ? 'compaction' : 'branch summary'}</span><time>${esc(e.timestamp.replace('T', ' ').slice(0, 19))}</time></header><details open><summary>Summary</summary><div class="text">${esc(e.summary)}</div></details></section>`,
      );
    else if (e.kind === 'model_change') turns.push(`<p class="dim">${esc(modelChangeText(e))}</p>`);
  }
  return turns;
}

export function sessionToHtml(s: Session, opts: ExportOptions = {}): string {
  const turns = turnsHtml(s, opts.subAgents ?? new Map());
  const u = summarizeUsage(s.entries);
  const c = costSummary(s, opts.prices ?? PRICES);
  const usageRow = (label: string, x: Usage, cost: number | null, estimated: boolean, responses: number) =>
    `<tr><td>${esc(label)}</td><td>${x.input}</td><td>${x.output}</td><td>${x.cacheRead}</td><td>${x.cacheWrite}</td><td>${x.reasoning}</td><td>${responses}</td><td>${costText(cost, estimated)}</td></tr>`;
  const bs = branches(s);
  const title = s.title ?? `Session ${s.id}`;
  const leaf = currentLeaf(s);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${CSS}</style></head>
<body><main>
<h1>${esc(title)}</h1>
<div class="facts"><span>${esc(s.source)}</span><span>${esc(s.id)}</span>${s.project ? `<span>${esc(s.project)}</span>` : ''}<span>${esc(s.createdAt.slice(0, 16).replace('T', ' '))} → ${esc(s.updatedAt.slice(0, 16).replace('T', ' '))}</span>${u.models.length ? `<span>${esc(u.models.join(', '))}</span>` : ''}</div>
<details class="usage"><summary>Usage: ${totalTokens(u.usage)} tokens${c.cost !== null ? `, ${costText(c.cost, c.estimated)}` : ''} over ${u.responses} responses</summary>
<table><tr><th>model</th><th>input</th><th>output</th><th>cache read</th><th>cache write</th><th>reasoning</th><th>responses</th><th>cost</th></tr>
${c.byModel.map((m) => usageRow(m.model || '(unknown model)', m.usage, m.cost, m.estimated, m.responses)).join('\n')}
${c.byModel.length > 1 ? usageRow('total', u.usage, c.cost, c.estimated, u.responses) : ''}</table>${c.estimated ? `<p class="dim">${esc(ESTIMATE_NOTE)}</p>` : ''}${c.unpriced.length ? `<p class="dim">Not in the cost (no price known): ${esc(c.unpriced.join(', '))}</p>` : ''}</details>
${bs.length > 1 ? `<details class="branches"><summary>Branch tree: ${bs.length} branches (showing the current one${leaf ? `, leaf ${esc(leaf.id)}` : ''})</summary><pre>${esc(drawTree(s))}</pre></details>` : ''}
${turns.join('\n')}
</main></body></html>
`;
}
