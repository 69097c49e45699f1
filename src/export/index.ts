/**
 * `threadbase export`: a session as one self-contained HTML page (turns, collapsible tool calls
 * with their input and output, thinking, images, the branch tree, usage), as Markdown, or as the
 * model's JSON.
 */
import escapeHtml from 'escape-html';
import { drawTree } from '../cli/tree-view.js';
import { type DeclinedMark, declinedMarkOf, declinedWords } from '../convert/declined.js';
import { recordedImage } from '../convert/image-data.js';
import { fence, linesJoined, markdownLiteral, partToMarkdown, resultHeadMarkdown } from '../convert/markdown.js';
import { isProviderExecuted, PROVIDER_RAN } from '../convert/provider-tools.js';
import type { ChildSessions } from '../convert/session.js';
import { type LocalCommand, localCommand } from '../formats/claude/local-command.js';
import { injectedLabel } from '../formats/injected.js';
import { namedCall, sideChainChildren } from '../model/side-chains.js';
import { prefixOf } from '../model/text.js';
import { branches, currentLeaf, pathToLeaf, withoutRepeatedSettings } from '../model/tree.js';
import {
  addUsage,
  type Entry,
  emptyUsage,
  type Message,
  type Part,
  type Session,
  type ToolResultPart,
  totalTokens,
  type Usage,
} from '../model/types.js';
import { countedUsage, responseRecordOf, summarizeUsage } from '../model/usage.js';
import {
  type ModelUsageCost,
  PRICES,
  PRICES_DATE,
  type PriceTable,
  statsOfSessions,
  usageCostByModel,
} from '../stores/index-sync/prices.js';
import { markdownHeading, markdownText } from './markdown-escape.js';
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
  /** the sub-agent sessions by the id of the call that ran each (see subAgentsOf): their turns and usage are in the export */
  subAgents?: ReadonlyMap<string, SubAgentSession>;
}

/**
 * The sub-agent sessions of `session` and theirs, by the call that ran each, as `childrenOf` finds
 * them (the store the session was read from): the HTML page and the Markdown show each under its
 * call, so the work a sub-agent did is in the export, and count its usage. A session met twice (a
 * store's loop) is shown once.
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

/** The formats rendered from the session's turns (json is the model as it is: jsonChunks streams it). */
export type RenderedFormat = Exclude<ExportFormat, 'json'>;

export function exportSession(session: Session, format: ExportFormat, opts: ExportOptions = {}): string {
  if (format === 'json') return `${JSON.stringify(session, null, 2)}\n`;
  return [...exportSessionPieces(session, format, opts)].join('');
}

/**
 * exportSession's text in pieces that make it when joined, each made as it is asked for (the HTML
 * page a piece a turn: sessionToHtmlPieces), so a writer holds a batch of them, not the document.
 */
export function exportSessionPieces(
  session: Session,
  format: RenderedFormat,
  opts: ExportOptions = {},
): Generator<string, void, undefined> {
  return format === 'md' ? sessionToMarkdownPieces(session, opts) : sessionToHtmlPieces(session, opts);
}

/**
 * A session as the export shows it: the sub-agents each call ran (the store's sessions, and the
 * session's in-file side chains, Claude Code's older sub-agents and the Agent SDK's, as sessions
 * of their own: sideChainChildren), and the side chains no call on its path ran, shown apart.
 */
interface ShownSession {
  session: Session;
  subAgents: Map<string, ShownSession>;
  sideChains: ShownSession[];
  /** the entries shown as side chains: not the session's own turns or usage */
  sideChainEntries: Set<string>;
}

/** A side chain no call ran, as a session of its own (as sideChainChildren makes those a call ran). */
function sideChainSession(parent: Session, entries: Entry[]): Session {
  const first = entries[0] as Entry;
  const last = entries.at(-1) as Entry;
  return {
    id: first.id,
    source: parent.source,
    ...(parent.project ? { project: parent.project } : {}),
    createdAt: first.timestamp,
    updatedAt: last.timestamp,
    messageCount: entries.filter((e) => e.kind === 'message').length,
    entries,
    leafId: last.id,
    parentId: parent.id,
  };
}

function shownSession(session: Session, subAgents: ReadonlyMap<string, SubAgentSession>): ShownSession {
  const shown: ShownSession = { session, subAgents: new Map(), sideChains: [], sideChainEntries: new Set() };
  for (const [call, sub] of subAgents) shown.subAgents.set(call, shownSession(sub.session, sub.subAgents));
  if (!session.entries.some((e) => e.sidechain)) return shown;
  const { children, unplaced } = sideChainChildren(session, pathToLeaf(session));
  const chains = new Map<string, ShownSession>();
  for (const child of children) {
    const chain = shownSession(child.session, new Map());
    chains.set(child.session.id, chain);
    for (const e of child.session.entries) shown.sideChainEntries.add(e.id);
    // under its call (in a chain placed before it, for a sub-agent's own); a call whose sub-agent the store holds keeps that one
    const under = child.within === undefined ? shown : chains.get(child.within);
    // a call whose sub-agent the store holds keeps that one: the chain is its work (Copilot CLI's runs are both)
    if (under?.subAgents.has(child.session.parentToolCallId)) continue;
    if (under) under.subAgents.set(child.session.parentToolCallId, chain);
    else shown.sideChains.push(chain);
  }
  for (const entries of unplaced) {
    for (const e of entries) shown.sideChainEntries.add(e.id);
    const named = namedCall(entries);
    if (named !== undefined && shown.subAgents.has(named)) continue;
    shown.sideChains.push(shownSession(sideChainSession(session, entries), new Map()));
  }
  return shown;
}

/** Every sub-agent below `shown` (theirs too) and its side chains, in the order the export shows them. */
function subAgentsBelow(shown: ShownSession): ShownSession[] {
  return [...shown.subAgents.values(), ...shown.sideChains].flatMap((sub) => [sub, ...subAgentsBelow(sub)]);
}

/** The entries that are the session's own: its side chains are sub-agents of their own. */
const ownEntries = (shown: ShownSession): Entry[] =>
  shown.sideChainEntries.size ? shown.session.entries.filter((e) => !shown.sideChainEntries.has(e.id)) : shown.session.entries;

/** What entries cost, per model and in all, as `threadbase stats` counts it. */
function costSummary(entries: readonly Entry[], prices: PriceTable) {
  const byModel = usageCostByModel(entries, prices);
  return { byModel, ...sumOfModels(byModel) };
}

/** `1 response`, `7 responses`: a count and its noun, as a reader says it. */
function countOf(n: number, noun: string): string {
  return `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
}

/** Rows of usageCostByModel as one: their tokens, cost (null when none has one), responses. */
function sumOfModels(byModel: readonly ModelUsageCost[]) {
  const priced = byModel.filter((m) => m.cost !== null);
  return {
    usage: byModel.reduce((u, m) => addUsage(u, m.usage), emptyUsage()),
    cost: priced.length ? priced.reduce((n, m) => n + (m.cost ?? 0), 0) : null,
    estimated: byModel.some((m) => m.estimated),
    responses: byModel.reduce((n, m) => n + m.responses, 0),
    /** models with tokens and no price: left out of the cost */
    unpriced: byModel.filter((m) => m.cost === null && totalTokens(m.usage) > 0).map((m) => m.model || '(unknown model)'),
  };
}

/** One line of the usage table: a model of the session, a sub-agent, or the total. */
interface UsageLine {
  label: string;
  usage: Usage;
  cost: number | null;
  estimated: boolean;
  responses: number;
}

/**
 * A session's usage with its sub-agents': a line per model of its own, a line per sub-agent, and the
 * total of them all as `threadbase stats` counts those sessions (statsOfSessions: each response once,
 * a response copied into several of them too).
 */
function usageWithSubAgents(shown: ShownSession, prices: PriceTable) {
  const own = costSummary(ownEntries(shown), prices);
  const subs = subAgentsBelow(shown).map((sub) => ({ sub, cost: sumOfModels(usageCostByModel(ownEntries(sub), prices)) }));
  const models: UsageLine[] = own.byModel.map((m) => ({ ...m, label: m.model || '(unknown model)' }));
  const subAgents: UsageLine[] = subs.map(({ sub, cost }) => ({
    ...cost,
    label: `sub-agent: ${sub.session.title ?? sub.session.id}`,
  }));
  const lines = [...models, ...subAgents];
  let total: UsageLine = { ...own, label: 'total' };
  if (subs.length) {
    const stats = statsOfSessions([shown.session, ...subs.map(({ sub }) => sub.session)], prices);
    const { cost: _recorded, messages, ...usage } = stats.usage;
    total = {
      label: 'total',
      usage,
      cost: lines.some((l) => l.cost !== null) ? stats.recordedCost + stats.cost : null,
      estimated: lines.some((l) => l.estimated),
      responses: messages,
    };
  }
  const unpriced = [...new Set([...own.unpriced, ...subs.flatMap(({ cost }) => cost.unpriced)])];
  return { own, models, subAgents, lines, total, unpriced, estimated: total.estimated };
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
      return `**Compaction summary**${e.tokensBefore ? ` (${e.tokensBefore} tokens before)` : ''}\n\n${markdownText(e.summary)}`;
    case 'branch_summary':
      return `**Branch summary**\n\n${markdownText(e.summary)}`;
    case 'model_change':
      // the model's name as written: `_` or `*` in it ended the emphasis or began another
      return `_${markdownLiteral(modelChangeText(e))}_`;
    default:
      return undefined;
  }
}

/** What the agent wrote into the conversation itself, by its name (undefined: the user's or the model's own words). */
const injectedOf = (m: Message) => (m.meta?.compactionSummary || m.meta?.branchSummary ? undefined : injectedLabel(m));

const esc = (s: string) => escapeHtml(s);

/** A user turn that is Claude Code's record of a command run in it (`/compact`) or of its output: that (localCommand), as the viewer shows it. */
function localCommandOf(m: Message): LocalCommand | undefined {
  const only = m.parts.length === 1 ? m.parts[0] : undefined;
  return m.role === 'user' && only?.type === 'text' ? localCommand(only.text) : undefined;
}

/**
 * A tool's output that is JSON with multi-line strings (Cline's read_files) readable, as the HTML page
 * shows it (readableJson), with the output as recorded folded below; undefined for any other output.
 */
function readableResultMarkdown(r: ToolResultPart): string | undefined {
  const text =
    typeof r.content === 'string' ? r.content : r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
  const readable = readableJson(text);
  if (readable === undefined) return undefined;
  return `${resultHeadMarkdown(r)}\n\n${fence(readable)}\n\n${foldMd('as recorded (JSON)', fence(text))}`;
}

/** A tool result in Markdown as the context's Markdown writes it, JSON made readable. */
function resultMarkdown(r: ToolResultPart): string {
  const readable = readableResultMarkdown(r);
  if (readable !== undefined) return readable;
  const body =
    typeof r.content === 'string' ? r.content : r.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
  return `${resultHeadMarkdown(r)}\n\n${fence(body)}`;
}

/** Code in Markdown: in a fence longer than any run of backticks in it. */
/** A message of empty text alone (a model that answered with nothing, which Claude Code then asks to go on): said so, as the viewer says it. */
const emptyTextOf = (m: Message) =>
  m.parts.length > 0 && m.parts.every((p) => p.type === 'text' && !p.text.trim())
    ? m.role === 'assistant'
      ? '(no text: the model answered with nothing)'
      : '(empty message)'
    : undefined;

const textLength = (m: Message) => m.parts.reduce((n, p) => n + (p.type === 'text' ? p.text.length : 0), 0);
const charactersText = (n: number) => `${n.toLocaleString('en-US')} characters`;

/** Folded Markdown (GitHub's and most renderers' <details>): `summary` shown, `body` on a click. */
const foldMd = (summary: string, body: string) => `<details><summary>${esc(summary)}</summary>\n\n${body}\n\n</details>`;

/** A sub-agent's session in Markdown, folded: its turns (headings one level down), its own sub-agents under its calls. */
function subAgentMarkdown(sub: ShownSession, depth: number, label = 'Sub-agent session'): string {
  const s = sub.session;
  const turns = [...turnsMarkdown(sub, depth)];
  return foldMd(`${label}: ${linesJoined(s.title ?? s.id)} (${s.source} · ${s.id} · ${turns.length} turns)`, turns.join('\n'));
}

/**
 * An image in Markdown: its data as a data: URL of the kind its bytes are; data no browser can show (not
 * base64, empty, no image, cut short) said in words instead of an image that shows broken (imageData).
 * An image by address is left to its address.
 */
function imageMarkdown(p: Extract<Part, { type: 'image' }>): string {
  const image = recordedImage(p);
  if (!image) return partToMarkdown(p);
  return image.ok ? `![image](data:${image.mediaType};base64,${image.data})` : markdownText(image.said, 'inline');
}

function partMarkdown(p: Part, sub: ShownSession, depth: number): string {
  // text and thinking as written: a tag in them (<system-reminder>) is no HTML for the renderer (markdownText)
  if (p.type === 'text')
    // text the agent added to the user's turn (OpenCode's and Kilo's synthetic parts), folded as the HTML page folds it
    return p.meta?.synthetic === true
      ? foldMd(`added by the agent · ${charactersText(p.text.length)}`, markdownText(p.text))
      : markdownText(p.text);
  if (p.type === 'thinking') return foldMd('thinking', markdownText(p.thinking));
  if (p.type === 'image') return imageMarkdown(p);
  const md = p.type === 'tool_result' ? resultMarkdown(p) : partToMarkdown(p);
  const child = p.type === 'tool_call' ? sub.subAgents.get(p.id) : undefined;
  return child ? `${md}\n\n${subAgentMarkdown(child, depth + 1)}` : md;
}

/** A message in Markdown under a heading of its role (## at the top, a level more per sub-agent), what the agent wrote itself folded. */
function messageMarkdown(m: Message, sub: ShownSession, depth: number): string {
  // a model's name as written (Claude Code's '<synthetic>' was taken for a tag and vanished)
  const who = m.role === 'assistant' && m.model ? `assistant (${markdownLiteral(m.model)})` : m.role;
  const command = localCommandOf(m);
  const empty = emptyTextOf(m);
  const parts = command
    ? `${command.kind === 'command' ? '' : `_${command.kind} of the command:_\n\n`}${fence(command.text)}`
    : empty
      ? `_${empty}_`
      : m.parts.map((p) => partMarkdown(p, sub, depth)).join('\n\n');
  const injected = injectedOf(m);
  const body = injected ? foldMd(`${injected} · ${charactersText(textLength(m))}`, parts) : parts;
  return `${'#'.repeat(Math.min(6, 2 + depth))} ${who}\n\n${body}${m.error ? `\n\n> error: ${markdownText(m.error, 'inline')}` : ''}\n`;
}

/** The turns of a session's path to its current leaf in Markdown, its side chains no call ran after them. */
function* turnsMarkdown(shown: ShownSession, depth: number): Generator<string, void, undefined> {
  for (const e of withoutRepeatedSettings(pathToLeaf(shown.session))) {
    if (e.kind === 'message') yield messageMarkdown(e.message, shown, depth);
    else {
      const t = entryText(e);
      if (t) yield `${t}\n`;
    }
  }
  for (const chain of shown.sideChains) yield `${subAgentMarkdown(chain, depth + 1, SIDE_CHAIN_LABEL)}\n`;
}

/** A side chain whose call is not on the path shown (or names none): a sub-agent all the same. */
const SIDE_CHAIN_LABEL = 'Sub-agent session (side chain, no call on this path ran it)';

/**
 * A value of the session's (a model's name, the project's path, its id) on one line of the Markdown, as
 * written: a tag in it is no HTML for the renderer, a line break in it ends no list item.
 */
const mdInline = (s: string) => markdownText(linesJoined(s), 'inline');

const usageMd = (l: UsageLine) =>
  `input ${l.usage.input}, output ${l.usage.output}, cache read ${l.usage.cacheRead}, cache write ${l.usage.cacheWrite}`;

export function sessionToMarkdown(s: Session, opts: ExportOptions = {}): string {
  return [...sessionToMarkdownPieces(s, opts)].join('');
}

/**
 * sessionToMarkdown's text as its lines (each after the first with the newline before it), a turn
 * rendered only when its piece is asked for; the head's totals come from the session, not the turns.
 */
export function* sessionToMarkdownPieces(s: Session, opts: ExportOptions = {}): Generator<string, void, undefined> {
  const shown = shownSession(s, opts.subAgents ?? new Map());
  const u = summarizeUsage(ownEntries(shown));
  const c = usageWithSubAgents(shown, opts.prices ?? PRICES);
  const { own } = c;
  const head = [
    `# ${markdownHeading(s.title ?? `Session ${s.id}`)}`,
    '',
    `- source: ${mdInline(s.source)}`,
    // names as written (markdownLiteral): an id or a path with `*`, `_x_` or a backtick went out as Markdown
    `- id: ${markdownLiteral(s.id)}`,
    ...(s.project ? [`- project: ${markdownLiteral(s.project)}`] : []),
    `- created: ${mdInline(s.createdAt)}`,
    `- updated: ${mdInline(s.updatedAt)}`,
    ...(u.models.length ? [`- models: ${mdInline(u.models.join(', '))}`] : []),
    `- tokens: ${usageMd({ ...own, label: '' })}${own.cost !== null ? `; cost ${costText(own.cost, own.estimated)}` : ''}`,
    ...(c.models.length > 1
      ? c.models.map((m) => `  - ${mdInline(m.label)}: ${usageMd(m)}; cost ${costText(m.cost, m.estimated)}`)
      : []),
    ...c.subAgents.map(
      (l) => `- ${markdownText(linesJoined(l.label), 'inline')}: ${usageMd(l)}; cost ${costText(l.cost, l.estimated)}`,
    ),
    ...(c.subAgents.length
      ? [
          `- total with sub-agents: ${usageMd(c.total)}; ${countOf(c.total.responses, 'response')}; cost ${costText(c.total.cost, c.total.estimated)}`,
        ]
      : []),
    ...(c.estimated ? [`- ${ESTIMATE_NOTE}`] : []),
    ...(c.unpriced.length ? [`- not in the cost (no price known): ${mdInline(c.unpriced.join(', '))}`] : []),
    '',
  ];
  // the head is never empty: its title line is the one piece with no newline before it
  yield head.join('\n');
  for (const turn of turnsMarkdown(shown, 0)) yield `\n${turn}`;
  const tree = branches(s).length > 1 ? ['', '## Branches', '', '```', drawTree(s), '```', ''] : [];
  yield tree.join('\n');
  yield '\n';
}

/**
 * An image: data no browser can show (not base64, empty, no image, cut short: imageData) said in words
 * up front, as the Markdown export says it; one the browser still fails to decode (or an image by
 * address that fails to load) replaced by words saying so, as the viewer says it, rather than a
 * broken-image icon.
 */
function imageHtml(p: { mediaType: string; data?: string; url?: string }, alt: string): string {
  const image = recordedImage(p);
  if (image && !image.ok) return `<p class="dim image-broken">${esc(image.said)}</p>`;
  const src = image ? `data:${image.mediaType};base64,${image.data}` : (p.url ?? '');
  const broken = `[image ${p.mediaType} that cannot be shown: its data is damaged or not that type]`;
  const replace = `this.replaceWith(Object.assign(document.createElement('p'),{className:'dim image-broken',textContent:this.dataset.broken}))`;
  return `<img alt="${esc(alt)}" src="${esc(src)}" data-broken="${esc(broken)}" onerror="${esc(replace)}">`;
}

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
        : c.type === 'image'
          ? imageHtml(c, 'tool image')
          : `<p class="dim">[${esc(c.type)} ${esc(c.mediaType)}]</p>`,
    )
    .join('');
}

/** What rendering one session's turns needs: its results by call id, those shown with their call, its sub-agents. */
interface TurnsContext {
  results: Map<string, ToolResultPart>;
  shown: Set<ToolResultPart>;
  subAgents: ReadonlyMap<string, ShownSession>;
  /** records of a response split over several whose tokens and cost another record of it shows */
  usageElsewhere: ReadonlySet<string>;
}

/**
 * The records of a response split over several (Claude Code writes thinking, text and each call a
 * record, each with the response's usage) but the one whose usage counts, as `stats` counts it once:
 * the page shows the response's tokens and cost there only, as the web viewer does (each record
 * showed them, read as a response's tokens spent twice). Only where that record is among `entries`.
 */
function usageShownElsewhere(entries: readonly Entry[]): Set<string> {
  const counted = countedUsage(entries);
  const countedResponses = new Set<string>();
  for (const e of entries) {
    const responseId = responseRecordOf(e)?.responseId;
    if (responseId && counted.has(e.id)) countedResponses.add(responseId);
  }
  const out = new Set<string>();
  for (const e of entries) {
    const r = responseRecordOf(e);
    if (r?.responseId && !counted.has(e.id) && countedResponses.has(r.responseId)) out.add(e.id);
  }
  return out;
}

/** A sub-agent's session folded under the call that ran it: its turns, and its own sub-agents under its calls. */
function subAgentHtml(sub: ShownSession, label = 'Sub-agent session'): string {
  const s = sub.session;
  const turns = [...turnsHtml(sub)];
  return `<details class="sub-agent${label === SIDE_CHAIN_LABEL ? ' side-chain' : ''}"><summary>${esc(label)}: <strong>${esc(s.title ?? s.id)}</strong> <span class="dim">${esc(s.source)} · ${esc(s.id)} · ${turns.length} turns</span></summary><div class="sub-agent-turns">${turns.join('\n')}</div></details>`;
}

/** A tool call's fold by its result: failed (red), refused or cancelled (did not run: dashed, amber), or neither. */
function toolClass(r: ToolResultPart | undefined): string {
  const mark = r && declinedMarkOf(r);
  return mark ? `tool declined ${mark}` : r?.isError ? 'tool error' : 'tool';
}

/** The badge of a refused or cancelled call in its head, with what it means for a screen reader. */
const declinedBadge = (mark: DeclinedMark) =>
  `<span class="badge ${mark}">${mark}<span class="sr-only">: ${esc(declinedWords(mark))}</span></span>`;

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
      return imageHtml(p, 'image');
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
      const mark = r && declinedMarkOf(r);
      return `<details class="${toolClass(r)}"><summary><span class="tool-name">${esc(p.name)}</span> <span class="dim">${esc(prefixOf(summaryArg ?? '', 120))}</span>${r ? (mark ? ` ${declinedBadge(mark)}` : '') : ` <span class="dim">(${isProviderExecuted(p) ? PROVIDER_RAN : 'no result'})</span>`}</summary>
<div class="io"><h4>Input</h4><pre>${esc(JSON.stringify(p.input, null, 2))}</pre>${r ? `<h4>Output${mark ? ` (${mark})` : r.isError ? ' (error)' : ''}</h4>${resultBody(r)}` : ''}</div></details>${sub ? subAgentHtml(sub) : ''}`;
    }
    case 'tool_result': {
      if (shown.has(p)) return '';
      const mark = declinedMarkOf(p);
      return `<details class="${toolClass(p)}"><summary>Result of <span class="dim">${esc(p.callId)}</span>${mark ? ` ${declinedBadge(mark)}` : ''}</summary><div class="io">${resultBody(p)}</div></details>`;
    }
  }
}

function messageHtml(m: Message, ts: string, ctx: TurnsContext, usageElsewhere = false): string {
  const command = localCommandOf(m);
  const empty = emptyTextOf(m);
  const parts = command
    ? `<pre class="local-command ${command.kind}">${esc(command.text)}</pre>`
    : empty
      ? `<p class="dim empty-text">${esc(empty)}</p>`
      : m.parts.map((p) => partHtml(p, ctx)).join('');
  if (!parts.trim()) return '';
  const u = usageElsewhere ? undefined : m.usage;
  const meta = [
    m.model ? esc(m.model) : '',
    u ? `${u.input} in · ${u.output} out${u.cacheRead ? ` · ${u.cacheRead} cached` : ''}` : '',
    m.cost !== undefined && !usageElsewhere ? `$${m.cost.toFixed(4)}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  // what the agent wrote itself (its instructions, the environment, a notification): folded under its name, as the viewer shows it
  const injected = injectedOf(m);
  const body = injected
    ? `<details class="injected"><summary>${esc(injected)} · ${charactersText(textLength(m))}</summary>${parts}</details>`
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
.text{white-space:pre-wrap;overflow-wrap:anywhere;unicode-bidi:plaintext;text-align:start}pre{background:rgba(127,127,127,.08);padding:10px;border-radius:6px;overflow:auto;max-height:480px;font-size:.82rem}
details{margin:8px 0;border-left:3px solid var(--line);padding-left:10px}details.tool.error{border-color:#dc2626}
/* a refused or cancelled call did not run: no failure's red, a dashed amber edge and a badge saying which */
details.tool.declined{border-left-style:dashed;border-color:#b45309}.badge{display:inline-block;font-size:.72rem;padding:0 6px;border-radius:8px;border:1px solid #b45309;color:#b45309}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
summary{cursor:pointer;color:var(--dim)}.tool-name{font-family:ui-monospace,monospace;color:var(--fg);font-weight:600}
h4{margin:8px 0 4px;font-size:.75rem;text-transform:uppercase;color:var(--dim)}.dim{color:var(--dim)}
/* an image of a few pixels (a 1×1 an agent read or drew) at 48 px at least, not a dot nobody sees */
img{max-width:100%;min-width:48px;height:auto;border-radius:6px;border:1px solid var(--line)}.err{color:#dc2626}
details.injected>summary{font-style:italic}details.sub-agent{border-left-color:var(--accent)}.sub-agent-turns .turn{margin:10px 0}.summary{border-style:dashed}table{border-collapse:collapse;font-size:.85rem;margin:8px 0}td,th{padding:3px 10px;border-bottom:1px solid var(--line);text-align:right}th:first-child,td:first-child{text-align:left}
tr.sub-agent td:first-child{padding-left:22px}tr.total td{font-weight:600}
/* a word longer than its place (a URL as the title, a long path, model or tool name) wraps in it instead of running out of the page */
h1,.facts,.turn header .meta,summary,td{overflow-wrap:anywhere}.turn header .meta{min-width:0}
`;

/** The turns of a session's path to its current leaf, as HTML sections (empty messages left out), its side chains no call ran after them. */
function* turnsHtml(sub: ShownSession): Generator<string, void, undefined> {
  const s = sub.session;
  const path = withoutRepeatedSettings(pathToLeaf(s));
  const results = new Map<string, ToolResultPart>();
  for (const e of path)
    if (e.kind === 'message') for (const p of e.message.parts) if (p.type === 'tool_result') results.set(p.callId, p);
  const ctx: TurnsContext = { results, shown: new Set(), subAgents: sub.subAgents, usageElsewhere: usageShownElsewhere(path) };
  for (const e of path) {
    if (e.kind === 'message') {
      const html = messageHtml(e.message, e.timestamp, ctx, ctx.usageElsewhere.has(e.id));
      if (html) yield html;
    } else if (e.kind === 'compaction' || e.kind === 'branch_summary')
      yield `<section class="turn summary"><header><span class="role">${e.kind === 'compaction' ? 'compaction' : 'branch summary'}</span><time>${esc(e.timestamp.replace('T', ' ').slice(0, 19))}</time></header><details open><summary>Summary</summary><div class="text">${esc(e.summary)}</div></details></section>`;
    else if (e.kind === 'model_change') yield `<p class="dim">${esc(modelChangeText(e))}</p>`;
  }
  for (const chain of sub.sideChains) yield subAgentHtml(chain, SIDE_CHAIN_LABEL);
}

export function sessionToHtml(s: Session, opts: ExportOptions = {}): string {
  return [...sessionToHtmlPieces(s, opts)].join('');
}

/**
 * The page in pieces (its head, each turn, the line breaks between them, its end) that make it when
 * joined: a large session's page written piece by piece is never one string of tens of MB (its
 * making and its encoding cost more than the rendering). Each turn is rendered when its piece is
 * asked for; the head's usage and branch tree come from the session, not the rendered turns.
 */
export function* sessionToHtmlPieces(s: Session, opts: ExportOptions = {}): Generator<string, void, undefined> {
  const shown = shownSession(s, opts.subAgents ?? new Map());
  const u = summarizeUsage(ownEntries(shown));
  const c = usageWithSubAgents(shown, opts.prices ?? PRICES);
  const usageRow = (l: UsageLine, cls: string) =>
    `<tr${cls ? ` class="${cls}"` : ''}><td>${esc(l.label)}</td><td>${l.usage.input}</td><td>${l.usage.output}</td><td>${l.usage.cacheRead}</td><td>${l.usage.cacheWrite}</td><td>${l.usage.reasoning}</td><td>${l.responses}</td><td>${costText(l.cost, l.estimated)}</td></tr>`;
  const subAgentsNote = c.subAgents.length
    ? ` (${c.subAgents.length} sub-agent${c.subAgents.length > 1 ? 's' : ''} included)`
    : '';
  const bs = branches(s);
  const title = s.title ?? `Session ${s.id}`;
  const leaf = currentLeaf(s);
  const head = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${CSS}</style></head>
<body><main>
<h1 dir="auto">${esc(title)}</h1>
<div class="facts"><span>${esc(s.source)}</span><span>${esc(s.id)}</span>${s.project ? `<span>${esc(s.project)}</span>` : ''}<span>${esc(s.createdAt.slice(0, 16).replace('T', ' '))} → ${esc(s.updatedAt.slice(0, 16).replace('T', ' '))}</span>${u.models.length ? `<span>${esc(u.models.join(', '))}</span>` : ''}</div>
<details class="usage"><summary>Usage: ${totalTokens(c.total.usage).toLocaleString('en-US')} tokens${c.total.cost !== null ? `, ${costText(c.total.cost, c.total.estimated)}` : ''} over ${countOf(c.total.responses, 'response')}${subAgentsNote}</summary>
<table><tr><th>model / sub-agent</th><th>input</th><th>output</th><th>cache read</th><th>cache write</th><th>reasoning</th><th>responses</th><th>cost</th></tr>
${c.models.map((l) => usageRow(l, '')).join('\n')}
${c.subAgents.map((l) => usageRow(l, 'sub-agent')).join('\n')}
${c.lines.length > 1 ? usageRow(c.total, 'total') : ''}</table>${c.estimated ? `<p class="dim">${esc(ESTIMATE_NOTE)}</p>` : ''}${c.unpriced.length ? `<p class="dim">Not in the cost (no price known): ${esc(c.unpriced.join(', '))}</p>` : ''}</details>
${bs.length > 1 ? `<details class="branches"><summary>Branch tree: ${bs.length} branches (showing the current one${leaf ? `, leaf ${esc(leaf.id)}` : ''})</summary><pre>${esc(drawTree(s))}</pre></details>` : ''}
`;
  yield head;
  let first = true;
  for (const turn of turnsHtml(shown)) {
    if (!first) yield '\n';
    first = false;
    yield turn;
  }
  yield '\n</main></body></html>\n';
}
