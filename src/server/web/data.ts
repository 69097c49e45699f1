/**
 * What the web viewer shows, computed from any SessionDriver: a filtered and sorted session list
 * with facets, pages of the path to a leaf with tool results paired to their calls, the tree of
 * branches and compactions collapsed to its interesting nodes, search hits, and usage buckets.
 * Pure over the driver; the routes in data-routes.ts turn these into JSON.
 */
import { injectedLabel } from '../../formats/injected.js';
import { CopyChoice, copyKeyOf, copyRankOf, inWindow } from '../../model/copies.js';
import type { CostBucket, CostBucketKey, SearchHit, SessionCost, SessionDriver, SessionFilter } from '../../model/driver.js';
import { NotFoundError, ThreadbaseError } from '../../model/errors.js';
import { namedCall, sideChainChildren } from '../../model/side-chains.js';
import { prefixOf, truncate } from '../../model/text.js';
import { readTimeWindow, type TimeWindowRefusal } from '../../model/time-window.js';
import {
  branches,
  currentLeaf,
  type EntryIndex,
  firstUserLine,
  indexEntries,
  isConversationEntry,
  nearestConversationEntry,
  pathTo,
  pathToLeaf,
  withoutRepeatedSettings,
} from '../../model/tree.js';
import {
  type Entry,
  type SessionRow as ListedSession,
  type Session,
  type SessionInfo,
  sessionRow,
  type ToolResultPart,
  totalTokens,
  type Usage,
} from '../../model/types.js';
import { type CountedUsage, countedUsage, responseRecordOf, summarizeUsage } from '../../model/usage.js';
import {
  costOf,
  costPerModel,
  PRICES,
  type PriceTable,
  pricedCost,
  priceOf,
  type ResponseWindow,
  responseCost,
} from '../../stores/index-sync/prices.js';
import { dayIn } from '../../stores/index-sync/stats.js';
import { queryTerms, searchTerms, sessionMatches, snippetOf } from '../../stores/search-text.js';
import { agentOf, ofAgent } from '../../stores/shared.js';

// ---------------------------------------------------------------------------------------------
// Caches: one loaded session serves many page requests (a 10,000-entry session is parsed once).

interface LoadedSession {
  session: Session;
  index: EntryIndex;
  loadedAt: number;
  /** leaf id → path from the root, the tool results on it by call id, and where split responses show their usage */
  paths: Map<
    string,
    { path: Entry[]; results: Map<string, ToolResultPart>; positions: Map<string, number>; usageShownOn: Map<string, string> }
  >;
  /** leaf id → the context the model sees there, as entries the viewer can page */
  contexts: Map<
    string,
    { entries: Entry[]; results: Map<string, ToolResultPart>; usageShownOn: Map<string, string>; model?: string }
  >;
  /** the records whose usage counts, one per response, with its usage (countedUsage), for the costs of every page */
  counted: Map<string, CountedUsage>;
  /** entry id → the entry itself when shown, else its nearest shown ancestor (null: none), as looked up */
  shownAt: Map<string, string | null>;
}

/** Whether the viewer shows an entry: not an agent's bookkeeping records, as `show` leaves them out. */
export const shownEntry = isConversationEntry;

export interface WebDataOptions {
  /** How long a loaded session or listing is reused before asking the driver again (ms). */
  cacheMs?: number;
  /** Sessions kept loaded at once. */
  cacheSize?: number;
  /** Up to this many sessions, stats load each session and count per message. */
  statsSessionLimit?: number;
  /** A store that cannot search itself is searched in its this many most recent sessions (default 500). */
  searchSessionLimit?: number;
  /**
   * Prices for responses whose agent recorded no cost (Claude Code never does), as `threadbase
   * stats` counts them; default the bundled table.
   */
  prices?: PriceTable;
}

/**
 * since/until as instants, as `stats --since/--until` takes them (readTimeWindow: a date alone its
 * whole day, so until 2026-11-25 counts that day; compared as text, a bare until left out the day it
 * names). A date or a time without an offset is `timeZone`'s (the reader's `tz`), else UTC's, as the
 * HTTP API reads them: never the server process's own zone. An empty value is no filter, as the routes
 * take it. A refused window (the routes refuse it first) is a bad_request error, not a filter of text
 * compared as text, which matched nothing or everything.
 */
function timeWindow(q: { since?: string; until?: string }, timeZone = 'UTC'): { since?: string; until?: string } {
  const window = readTimeWindow({ since: q.since || undefined, until: q.until || undefined, timeZone });
  if (!window.ok) throw new ThreadbaseError('bad_request', badWindowMessage(window));
  return { since: window.since, until: window.until };
}

/** A refused window in the routes' words (`field: what it must be`), with the value given. */
function badWindowMessage(refusal: TimeWindowRefusal): string {
  switch (refusal.reason) {
    case 'unknown-zone':
      return `tz: must be an IANA time zone (e.g. Europe/Berlin), got ${JSON.stringify(refusal.value)}`;
    case 'not-a-time':
      return `${refusal.field}: must be an ISO date or time (e.g. 2026-11-25 or 2026-11-25T14:00:00Z), got ${JSON.stringify(refusal.value)}`;
    case 'since-after-until':
      return `since: must not be after until (${refusal.since} is after ${refusal.until}: no time lies between them)`;
  }
}

export interface SessionListQuery {
  source?: string;
  project?: string;
  model?: string;
  since?: string;
  until?: string;
  text?: string;
  sort?: 'updated' | 'created' | 'messages' | 'cost' | 'tokens' | 'title';
  order?: 'asc' | 'desc';
  offset?: number;
  limit?: number;
  /** the zone a since/until date or time without an offset is read in (an IANA name), else UTC */
  tz?: string;
}

/** The listed session of the CLI contract (`sessionRow`), with what the viewer's list adds. */
export interface SessionRow extends ListedSession {
  /** the agent that recorded it (agentOf): `source` is where it is stored */
  agent: string;
  models: string[];
  tokens: number;
  cost: number | null;
  /** `cost` was priced from tokens with the table (the agent recorded none) */
  costEstimated: boolean;
  /**
   * models whose tokens recorded no cost and have no price: not in `cost` (null when nothing else is),
   * as `stats` shows a cost with such tokens (e.g. a conversion's copies of a pi session on a model of
   * its own, whose recorded cost the copy's agent keeps no field for)
   */
  unpricedModels: string[];
}

export interface SessionListPage {
  total: number;
  offset: number;
  sessions: SessionRow[];
  facets: { sources: string[]; projects: string[]; models: string[] };
}

/** An entry as the browser gets it: the agent's raw records stay on the server. */
export type EntryView = Omit<Entry, 'raw' | 'rawSource'> & {
  /**
   * A message its agent wrote into the conversation itself: what it is (formats/injected.ts), e.g.
   * 'environment_context, added by codex'; the viewer shows it folded under that name.
   */
  injected?: string;
  /**
   * A record of a response split over several (Claude Code writes one per content block, each with
   * the response's usage): the id of the record that shows the response's tokens and cost, once.
   */
  usageShownOn?: string;
};

export interface PathPage {
  sessionId: string;
  leafId: string | null;
  total: number;
  offset: number;
  entries: EntryView[];
  /** Results of the tool calls on this page, by call id, wherever on the path they are. */
  toolResults: Record<string, ToolResultPart>;
  /** Call ids whose call is on the path (a tool message answering one is shown with its call). */
  pairedResultIds: string[];
  /**
   * Cost of the responses on this page whose agent recorded none (Claude Code never does), priced
   * from their usage as `stats` prices it, by the entry id of the record that counts for the response.
   */
  pricedCosts: Record<string, number>;
}

export interface TreeNode {
  id: string;
  parentId: string | null;
  kind: Entry['kind'];
  role?: string;
  label: string;
  timestamp: string;
  /** entries between this node and its parent node that are plain links in a chain */
  skipped: number;
  leaf: boolean;
  current: boolean;
  sidechain: boolean;
  /** length of the path from the root, for leaves */
  depth: number;
}

/** A session started from this one: a sub-agent it ran (named by the call that ran it) or a fork. */
export interface ChildSession {
  id: string;
  source: string;
  title?: string;
  createdAt: string;
  messageCount: number;
  parentToolCallId?: string;
  /**
   * A sub-agent whose work is in this session's own file (an older Claude Code's in-file side chain,
   * the Agent SDK's): its `id` is the chain's first entry, and it is shown in this session at this leaf.
   */
  sideChainLeafId?: string;
}

/**
 * The session's in-file side chains as sub-agents (sideChainChildren, as the export shows them): by
 * the call that ran each, else by none. A chain whose call ran a sub-agent the store holds is that
 * sub-agent's work (Copilot CLI's runs are both): the stored session stands for it.
 */
function sideChainsAsChildren(session: Session, stored: readonly ChildSession[]): ChildSession[] {
  if (!session.entries.some((e) => e.sidechain)) return [];
  const storedCalls = new Set(stored.flatMap((c) => (c.parentToolCallId ? [c.parentToolCallId] : [])));
  const { children, unplaced } = sideChainChildren(session, pathToLeaf(session));
  const asChild = (entries: readonly Entry[], callId: string | undefined, title: string | undefined): ChildSession[] => {
    const first = entries[0];
    // the leaf shown: its last message (a record after it, Claude Code's mode entry, is not shown)
    const last = entries.findLast((e) => e.kind === 'message') ?? entries.at(-1);
    const ranBy = callId ?? namedCall(entries);
    if (!first || !last || (ranBy !== undefined && storedCalls.has(ranBy))) return [];
    const name = title ?? firstUserLine(entries);
    return [
      {
        id: first.id,
        source: session.source,
        createdAt: first.timestamp,
        messageCount: entries.filter((e) => e.kind === 'message').length,
        ...(name ? { title: name } : {}),
        ...(callId ? { parentToolCallId: callId } : {}),
        sideChainLeafId: last.id,
      },
    ];
  };
  return [
    ...children.flatMap((c) => asChild(c.session.entries, c.session.parentToolCallId, c.session.title)),
    ...unplaced.flatMap((entries) => asChild(entries, undefined, undefined)),
  ];
}

export interface SessionHeader {
  info: SessionInfo & { usage?: Usage };
  /** the agent that recorded it (agentOf) */
  agent: string;
  /** the sessions whose parent is this one, oldest first: the viewer links each from its tool call */
  children: ChildSession[];
  leafId: string | null;
  entryCount: number;
  branchCount: number;
  warnings: Session['warnings'];
  /** the recorded cost of every response, with those the agent recorded none for priced from usage */
  cost: number | null;
  /** part of `cost` was priced (not recorded) */
  costEstimated: boolean;
  /** models whose responses used tokens, recorded no cost and have no price: left out of `cost` */
  unpricedModels: string[];
}

/** One chart group, as the stores' costBuckets answer it. */
export type StatsBucket = CostBucket;

export interface StatsResult {
  totals: StatsBucket;
  /** the part of totals.cost priced from tokens with the table (the agents recorded none): the page marks the cost ≈ */
  estimatedCost: number;
  /** 'message': counted per assistant response; 'session': from each session's totals (many sessions) */
  granularity: 'message' | 'session';
  /** the time zone whose days byDay counts (the one asked for; UTC where the store counts the days) */
  dayZone: string;
  byDay: StatsBucket[];
  byModel: StatsBucket[];
  byProject: StatsBucket[];
  bySource: StatsBucket[];
  sessions: number;
}

const previewOf = (e: Entry, max = 80): string => {
  let text = '';
  switch (e.kind) {
    case 'message': {
      const m = e.message;
      const injected = injectedLabel(m);
      if (injected) {
        text = `(${injected})`;
        break;
      }
      for (const p of m.parts) {
        if (p.type === 'text' && p.text.trim()) {
          text = p.text;
          break;
        }
        if (p.type === 'tool_call') {
          text = `${p.name}(${prefixOf(JSON.stringify(p.input), 60)})`;
          break;
        }
        if (p.type === 'tool_result') {
          text = `result: ${typeof p.content === 'string' ? p.content : p.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join(' ')}`;
          break;
        }
        if (p.type === 'image') text = '[image]';
      }
      break;
    }
    case 'compaction':
    case 'branch_summary':
      text = e.summary;
      break;
    case 'model_change':
      text =
        [e.model && `model → ${e.model}`, e.thinkingLevel && `thinking ${e.thinkingLevel}`].filter(Boolean).join(' · ') ||
        'model → ?';
      break;
    case 'label':
      text = `label ${e.label ?? '(cleared)'}`;
      break;
    case 'metadata':
      text = e.type;
      break;
  }
  text = text.replace(/\s+/g, ' ').trim();
  return truncate(text, max);
};

/** A session (its source and id) as indexCosts keys it. */
const costKey = (source: string, id: string) => `${source}\u0000${id}`;

function emptyBucket(key: string): StatsBucket {
  return { key, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0, responses: 0 };
}

/** The recorded cost, else the usage priced by model (0 for a model the table does not know). */
function costOrPriced(prices: PriceTable, cost: number | undefined, u: Usage | undefined, model: string | undefined) {
  return cost ?? pricedCost(prices, { usage: u, model }) ?? 0;
}

function addTo(b: StatsBucket, u: Usage | undefined, cost: number | undefined, responses = 1): void {
  if (u) {
    b.input += u.input;
    b.output += u.output;
    b.cacheRead += u.cacheRead;
    b.cacheWrite += u.cacheWrite;
    b.reasoning += u.reasoning;
  }
  b.cost += cost ?? 0;
  b.responses += responses;
}

/** One counted record of a session: its time and model, usage and cost (recorded, else priced). */
interface CountedRecord {
  /** the response id and time, else the entry id and time: a fork's or a conversion's copy has the same (CopyKey) */
  copyKey: string;
  /** which copy counts on a tie of sessions' start: 0 recorded cost, 1 priced, 2 cost 0 for tokens (as the index) */
  copyRank: number;
  /** the counted record's time (a window selects responses by it) */
  timestamp: string;
  /** when it counts on a day: its time, else the session's start */
  at: string;
  model: string;
  /** an advisor request inside the response (its tokens and cost, not another response) */
  advisor?: true;
  usage: Usage | undefined;
  cost: number | undefined;
  /** `cost` was priced from tokens (the agent recorded none) */
  priced: boolean;
}

/** One session's counted records, cached by updatedAt. */
interface SessionUsageCells {
  updatedAt: string;
  records: CountedRecord[];
}

export class WebData {
  readonly driver: SessionDriver;
  private readonly cacheMs: number;
  private readonly cacheSize: number;
  private readonly statsSessionLimit: number;
  private readonly searchSessionLimit: number;
  private readonly prices: PriceTable;
  private loaded = new Map<string, LoadedSession>();
  private listing?: { at: number; sessions: SessionInfo[] };
  private usageCells = new Map<string, SessionUsageCells>();

  constructor(driver: SessionDriver, opts: WebDataOptions = {}) {
    this.driver = driver;
    this.cacheMs = opts.cacheMs ?? 5_000;
    this.cacheSize = opts.cacheSize ?? 6;
    this.statsSessionLimit = opts.statsSessionLimit ?? 400;
    this.searchSessionLimit = opts.searchSessionLimit ?? 500;
    this.prices = opts.prices ?? PRICES;
  }

  /** Drops every cached listing and session (after a write through the viewer). */
  invalidate(): void {
    this.loaded.clear();
    this.listing = undefined;
  }

  private async allSessions(): Promise<SessionInfo[]> {
    const now = Date.now();
    if (this.listing && now - this.listing.at < this.cacheMs) return this.listing.sessions;
    const sessions = await this.driver.listSessions({});
    this.listing = { at: now, sessions };
    return sessions;
  }

  async listSessions(query: SessionListQuery): Promise<SessionListPage> {
    const { tz, ...rest } = query;
    const q = { ...rest, ...timeWindow(rest, tz) };
    const all = await this.allSessions();
    const facets = {
      // the agents the sessions came from, and the stores' own names (threadbase) a filter also takes
      sources: [...new Set(all.flatMap((s) => [s.source, agentOf(s)]))].sort(),
      projects: [...new Set(all.map((s) => s.project).filter((p): p is string => !!p))].sort(),
      models: [...new Set(all.flatMap((s) => s.models ?? []))].sort(),
    };
    const text = q.text?.toLowerCase();
    const rows = all.filter(
      (s) =>
        ofAgent(s, q.source) &&
        (!q.project || s.project === q.project) &&
        (!q.model || (s.models ?? []).includes(q.model)) &&
        (!q.since || s.updatedAt >= q.since) &&
        (!q.until || s.updatedAt <= q.until) &&
        (!text || `${s.title ?? ''} ${s.id} ${s.project ?? ''}`.toLowerCase().includes(text)),
    );
    const sort = q.sort ?? 'updated';
    // sorted by cost: every session priced as the page prices it (one query over the whole index)
    const allCosts = sort === 'cost' ? await this.indexCosts() : undefined;
    const key = (s: SessionInfo): string | number => {
      switch (sort) {
        case 'created':
          return s.createdAt;
        case 'messages':
          return s.messageCount;
        case 'cost':
          return this.listCost(s, allCosts?.get(costKey(s.source, s.id))).cost ?? 0;
        case 'tokens':
          return totalTokens(s.usage);
        case 'title':
          return (s.title ?? '').toLowerCase();
        default:
          return s.updatedAt;
      }
    };
    const dir = (q.order ?? (sort === 'title' ? 'asc' : 'desc')) === 'asc' ? 1 : -1;
    rows.sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      return ka < kb ? -dir : ka > kb ? dir : a.id < b.id ? -1 : 1;
    });
    const offset = Math.max(0, q.offset ?? 0);
    const limit = Math.min(500, Math.max(1, q.limit ?? 50));
    const page = rows.slice(offset, offset + limit);
    const exact = allCosts ?? (page.length ? await this.indexCosts(page) : undefined);
    return {
      total: rows.length,
      offset,
      facets,
      sessions: page.map((s) => ({
        ...sessionRow(s),
        agent: agentOf(s),
        models: s.models ?? [],
        tokens: totalTokens(s.usage),
        ...this.listCost(s, exact?.get(costKey(s.source, s.id))),
      })),
    };
  }

  /**
   * What sessions (default every one) cost request by request, as `stats --by session` and the
   * session's page price them, by costKey (one query over their records), where the store prices per
   * request (SessionDriver.sessionCosts: the local index, a team server's PostgreSQL or SQLite).
   */
  private async indexCosts(sessions?: readonly SessionInfo[]): Promise<Map<string, SessionCost> | undefined> {
    if (!this.driver.sessionCosts) return undefined;
    const rows = await this.driver.sessionCosts(
      this.prices,
      sessions?.map((s) => s.id),
    );
    return new Map(rows.map((r) => [costKey(r.source, r.id), r]));
  }

  /**
   * A session's cost for the list: `exact` where the store prices request by request (recorded
   * costs plus the rest priced); else the recorded one, else (an agent that records none, like Claude
   * Code) its tokens priced per model with the table; unknown (null) rather than a false $0 when a
   * model that used tokens is not in the table.
   */
  private listCost(
    s: SessionInfo,
    exact?: SessionCost,
  ): { cost: number | null; costEstimated: boolean; unpricedModels: string[] } {
    const unknown = { cost: null, costEstimated: false, unpricedModels: [] };
    if (exact) {
      const { unpricedModels } = exact;
      // what could be priced, the rest named (`stats`: 0.0250+), rather than no cost at all
      const cost = unpricedModels.length && exact.cost === 0 ? null : exact.cost;
      // estimated when more than the recorded cost (a part was priced from tokens)
      return { cost, costEstimated: exact.cost - (s.cost ?? 0) > 1e-12, unpricedModels: [...unpricedModels] };
    }
    if (s.cost) return { cost: s.cost, costEstimated: false, unpricedModels: [] };
    if (!s.usage || totalTokens(s.usage) === 0)
      return s.cost === undefined ? unknown : { cost: s.cost, costEstimated: false, unpricedModels: [] };
    const [only, ...more] = s.models ?? [];
    const byModel = s.usageByModel ?? (only !== undefined && more.length === 0 ? { [only]: s.usage } : undefined);
    if (!byModel) return unknown;
    let cost = 0;
    const unpricedModels: string[] = [];
    for (const [model, usage] of Object.entries(byModel)) {
      if (totalTokens(usage) === 0) continue;
      const price = priceOf(this.prices, model || undefined);
      if (!price) {
        unpricedModels.push(model || '(unknown model)');
        continue;
      }
      // a sum of requests, priced at the base rates: the session's page prices each request on its own
      cost += costOf(price, usage, 0);
    }
    const priced = unpricedModels.length === 0 || cost > 0;
    // a recorded $0 (pi's, OpenCode's on a free model) rather than tokens said to have no price
    if (!priced && s.cost === 0) return { cost: 0, costEstimated: false, unpricedModels: [] };
    return { cost: priced ? cost : null, costEstimated: priced, unpricedModels: unpricedModels.sort() };
  }

  async load(id: string): Promise<LoadedSession> {
    const hit = this.loaded.get(id);
    if (hit && Date.now() - hit.loadedAt < this.cacheMs) {
      // Refresh its place in the LRU order.
      this.loaded.delete(id);
      this.loaded.set(id, hit);
      return hit;
    }
    const session = await this.driver.getSession(id);
    if (!session) throw new NotFoundError('session', id);
    const fresh: LoadedSession = {
      session,
      index: indexEntries(session.entries),
      loadedAt: Date.now(),
      paths: new Map(),
      contexts: new Map(),
      counted: countedUsage(session.entries),
      shownAt: new Map(),
    };
    this.loaded.delete(id);
    this.loaded.set(id, fresh);
    while (this.loaded.size > this.cacheSize) {
      const oldest = this.loaded.keys().next().value;
      if (oldest === undefined) break;
      this.loaded.delete(oldest);
    }
    return fresh;
  }

  private pathOf(ls: LoadedSession, leafId: string) {
    let p = ls.paths.get(leafId);
    if (!p) {
      const path = withoutRepeatedSettings(pathTo(ls.index, leafId).filter(shownEntry));
      const results = new Map<string, ToolResultPart>();
      const positions = new Map<string, number>();
      path.forEach((e, i) => {
        positions.set(e.id, i);
        if (e.kind === 'message')
          for (const part of e.message.parts) if (part.type === 'tool_result') results.set(part.callId, part);
      });
      p = { path, results, positions, usageShownOn: usageShownOn(path) };
      if (ls.paths.size > 16) ls.paths.clear();
      ls.paths.set(leafId, p);
    }
    return p;
  }

  /** The entry itself when shown, else its nearest shown ancestor (null when none is). */
  private shownAncestor(ls: LoadedSession, id: string | null): string | null {
    return nearestConversationEntry(ls.index, id, ls.shownAt);
  }

  /**
   * The leaf to show: the one asked for; else, when an entry is to be shown, the current leaf if
   * the entry is on its path, or the newest leaf below the entry; else the current leaf. A leaf that
   * is a bookkeeping record gives way to its nearest shown ancestor.
   */
  resolveLeaf(ls: LoadedSession, leaf?: string, entry?: string): string | null {
    if (leaf) {
      if (!ls.index.byId.has(leaf)) throw new NotFoundError('entry', leaf, { file: ls.session.path });
      return this.shownAncestor(ls, leaf) ?? leaf;
    }
    const cur = this.currentShownLeaf(ls);
    if (!entry || !ls.index.byId.has(entry)) return cur;
    if (cur && this.pathOf(ls, cur).positions.has(entry)) return cur;
    // Walk down from the entry, always taking the latest shown child, to a leaf.
    let at = entry;
    for (;;) {
      const kids = (ls.index.children.get(at) ?? []).filter(shownEntry);
      if (!kids.length) return this.shownAncestor(ls, at) ?? at;
      let next = kids[0] as Entry;
      for (const k of kids) if ((ls.index.order.get(k.id) ?? 0) > (ls.index.order.get(next.id) ?? 0)) next = k;
      at = next.id;
    }
  }

  /** The current leaf as shown: the session's current leaf, or its nearest shown ancestor. */
  private currentShownLeaf(ls: LoadedSession): string | null {
    const cur = currentLeaf(ls.session)?.id ?? null;
    return cur === null ? null : (this.shownAncestor(ls, cur) ?? cur);
  }

  async header(id: string): Promise<SessionHeader> {
    const ls = await this.load(id);
    const { entries: _entries, raw: _raw, warnings, leafId: _leaf, ...info } = ls.session;
    const stored = (await this.allSessions())
      .filter((s) => s.parentId === id && s.id !== id)
      .map(
        (s): ChildSession => ({
          id: s.id,
          source: s.source,
          createdAt: s.createdAt,
          messageCount: s.messageCount,
          ...(s.title ? { title: s.title } : {}),
          ...(s.parentToolCallId ? { parentToolCallId: s.parentToolCallId } : {}),
        }),
      );
    const children = [...stored, ...sideChainsAsChildren(ls.session, stored)].sort((a, b) =>
      a.createdAt.localeCompare(b.createdAt),
    );
    return {
      info,
      agent: agentOf(info),
      children,
      leafId: this.currentShownLeaf(ls),
      entryCount: ls.session.entries.filter(shownEntry).length,
      branchCount: branches(ls.session).length,
      warnings: (warnings ?? []).slice(0, 100),
      ...this.sessionCost(ls),
    };
  }

  /** Recorded costs, and usage priced where none was recorded, one per response (as `stats` counts). */
  private sessionCost(ls: LoadedSession): { cost: number | null; costEstimated: boolean; unpricedModels: string[] } {
    const entries = ls.session.entries;
    const unpriced = new Set<string>();
    for (const c of ls.counted.values())
      if (
        c.cost === undefined &&
        totalTokens(c.usage) > 0 &&
        c.usage &&
        responseCost(this.prices, c.model, c.usage) === undefined
      )
        unpriced.add(c.model || '(unknown model)');
    const priced = this.pricedCosts(ls, entries);
    const recorded = entries.some((e) => e.kind === 'message' && e.message.role === 'assistant' && e.message.cost !== undefined);
    const estimates = Object.values(priced);
    // summarizeUsage: a split response's cost counts once
    let cost: number | null = recorded ? summarizeUsage(entries).cost : null;
    for (const c of estimates) cost = (cost ?? 0) + c;
    return { cost, costEstimated: estimates.length > 0, unpricedModels: [...unpriced].sort() };
  }

  async pathPage(
    id: string,
    opts: { leaf?: string; entry?: string; offset?: number; limit?: number },
  ): Promise<PathPage & { entryPosition: number | null }> {
    const ls = await this.load(id);
    const leafId = this.resolveLeaf(ls, opts.leaf, opts.entry);
    const p = leafId
      ? this.pathOf(ls, leafId)
      : {
          path: [],
          results: new Map<string, ToolResultPart>(),
          positions: new Map<string, number>(),
          usageShownOn: new Map<string, string>(),
        };
    const limit = Math.min(500, Math.max(1, opts.limit ?? 50));
    const entryPosition = opts.entry !== undefined ? (p.positions.get(opts.entry) ?? null) : null;
    // Asked for an entry without an offset: the page that holds it.
    const offset =
      opts.offset !== undefined
        ? Math.max(0, opts.offset)
        : entryPosition !== null
          ? Math.floor(entryPosition / limit) * limit
          : 0;
    const slice = p.path.slice(offset, offset + limit);
    return {
      sessionId: ls.session.id,
      leafId,
      total: p.path.length,
      offset,
      entryPosition,
      entries: slice.map((e) => viewOf(e, p.usageShownOn.get(e.id))),
      ...pageToolResults(slice, p.results, (callId) => this.callsOnPath(p.path).has(callId)),
      pricedCosts: this.pricedCosts(ls, slice),
    };
  }

  /** pricedCosts of a page: on the record that counts for each response (as `stats` counts). */
  private pricedCosts(ls: LoadedSession, page: readonly Entry[]): Record<string, number> {
    const { counted } = ls;
    const out: Record<string, number> = {};
    for (const e of page) {
      const c = counted.get(e.id);
      const priced = c && pricedCost(this.prices, c);
      if (priced !== undefined) out[e.id] = priced;
    }
    return out;
  }

  /**
   * The context a model sees when the session resumes at the leaf (compaction applied, abandoned
   * branches left out, worded as the store's driver words it), paged like the path.
   */
  async contextPage(
    id: string,
    opts: { leaf?: string; offset?: number; limit?: number },
  ): Promise<PathPage & { model: string | null }> {
    const ls = await this.load(id);
    const leafId = this.resolveLeaf(ls, opts.leaf);
    const key = leafId ?? '';
    let ctx = ls.contexts.get(key);
    if (!ctx) {
      const at = leafId ? { leafId } : {};
      // the session is read already: a 30 MB one read again for its context took 0.5–0.7 s
      const context = this.driver.contextOf?.(ls.session, at) ?? (await this.driver.getContext(ls.session.id, at));
      const entries: Entry[] = [];
      const results = new Map<string, ToolResultPart>();
      if (context.system) {
        entries.push({
          id: 'ctx-system',
          parentId: null,
          timestamp: '',
          kind: 'message',
          message: { role: 'system', parts: [{ type: 'text', text: context.system }] },
        });
      }
      context.messages.forEach((message, i) => {
        for (const part of message.parts) if (part.type === 'tool_result') results.set(part.callId, part);
        entries.push({
          id: `ctx-${i}`,
          parentId: entries[entries.length - 1]?.id ?? null,
          timestamp: '',
          kind: 'message',
          message,
        });
      });
      ctx = { entries, results, usageShownOn: usageShownOn(entries), model: context.model };
      if (ls.contexts.size > 8) ls.contexts.clear();
      ls.contexts.set(key, ctx);
    }
    const limit = Math.min(500, Math.max(1, opts.limit ?? 50));
    const offset = Math.max(0, opts.offset ?? 0);
    const slice = ctx.entries.slice(offset, offset + limit);
    const calls = toolCallIdsOf(ctx.entries);
    return {
      sessionId: ls.session.id,
      leafId,
      total: ctx.entries.length,
      offset,
      entries: slice.map((e) => viewOf(e, ctx.usageShownOn.get(e.id))),
      ...pageToolResults(slice, ctx.results, (callId) => calls.has(callId)),
      pricedCosts: this.pricedCosts(ls, slice),
      model: ctx.model ?? null,
    };
  }

  private callIndex = new WeakMap<Entry[], Set<string>>();
  /** The ids of the tool calls on a path, kept while the path is: a page of a long path asks for them again. */
  private callsOnPath(path: Entry[]): Set<string> {
    let calls = this.callIndex.get(path);
    if (!calls) {
      calls = toolCallIdsOf(path);
      this.callIndex.set(path, calls);
    }
    return calls;
  }

  /**
   * The tree with every plain link of a chain folded away: roots, branch points, leaves,
   * compactions and branch summaries remain, each saying how many entries it folds. Bookkeeping
   * records are left out (their children hang from the nearest shown entry above them), so they
   * neither show as leaves nor make branch points.
   */
  async tree(id: string): Promise<{ nodes: TreeNode[]; currentLeafId: string | null }> {
    const ls = await this.load(id);
    const { index, session } = ls;
    const cur = this.currentShownLeaf(ls);
    const children = new Map<string | null, Entry[]>();
    for (const e of session.entries) {
      if (!shownEntry(e)) continue;
      const parent = e.parentId === null || !index.byId.has(e.parentId) ? null : this.shownAncestor(ls, e.parentId);
      let list = children.get(parent);
      if (!list) {
        list = [];
        children.set(parent, list);
      }
      list.push(e);
    }
    const nodes: TreeNode[] = [];
    const roots = children.get(null) ?? [];
    // Iterative walk: a 10,000-entry chain must not overflow the stack.
    const stack: { e: Entry; parentNode: string | null; skipped: number; depth: number }[] = roots
      .slice()
      .reverse()
      .map((e) => ({ e, parentNode: null, skipped: 0, depth: 1 }));
    const seen = new Set<string>();
    while (stack.length) {
      const { e, parentNode, skipped, depth } = stack.pop() as (typeof stack)[number];
      if (seen.has(e.id)) continue;
      seen.add(e.id);
      const kids = children.get(e.id) ?? [];
      const interesting =
        parentNode === null || kids.length !== 1 || e.kind === 'compaction' || e.kind === 'branch_summary' || e.id === cur;
      let nextParent = parentNode;
      let nextSkipped = skipped + 1;
      if (interesting) {
        nodes.push({
          id: e.id,
          parentId: parentNode,
          kind: e.kind,
          role: e.kind === 'message' ? e.message.role : undefined,
          label: previewOf(e),
          timestamp: e.timestamp,
          skipped,
          leaf: kids.length === 0,
          current: e.id === cur,
          sidechain: !!e.sidechain,
          depth,
        });
        nextParent = e.id;
        nextSkipped = 0;
      }
      for (let i = kids.length - 1; i >= 0; i--) {
        stack.push({ e: kids[i] as Entry, parentNode: nextParent, skipped: nextSkipped, depth: depth + 1 });
      }
      if (nodes.length > 5000) break;
    }
    return { nodes, currentLeafId: cur };
  }

  /** Session titles by id, to label search hits. */
  async titles(): Promise<Map<string, string>> {
    return new Map((await this.allSessions()).map((s) => [s.id, s.title ?? '']));
  }

  /** Each session's agent (agentOf), by id: a search hit names its session's store only. */
  async agents(): Promise<Map<string, string>> {
    return new Map((await this.allSessions()).map((s) => [s.id, agentOf(s)]));
  }

  /** Full-text search through the driver's own index, else a bounded scan of the sessions. */
  async search(query: string, opts: { source?: string; project?: string; limit?: number }): Promise<SearchHit[]> {
    return (await this.searchWithScope(query, opts)).hits;
  }

  /**
   * search, and how many of the sessions it looked in when it scanned them (`scanned`: no index to ask,
   * only the searchSessionLimit most recent are read), so the page can say the rest were not searched.
   */
  async searchWithScope(
    query: string,
    opts: { source?: string; project?: string; limit?: number },
  ): Promise<{ hits: SearchHit[]; scanned?: { searched: number; of: number } }> {
    const limit = Math.min(200, Math.max(1, opts.limit ?? 50));
    if (this.driver.search && this.driver.capabilities.search) {
      // the index's snippet keeps the whitespace around a hit: the page shows it as written, blank lines and all
      const hits = await this.driver.search(query, { source: opts.source, project: opts.project, limit });
      return { hits: hits.map((h) => ({ ...h, snippet: h.snippet.trim() })) };
    }
    // the words the index would find, matched as it matches them (src/stores/search-text.ts)
    const terms = searchTerms(query);
    if (!terms.length) return { hits: [] };
    const marked = queryTerms(query);
    const hits: SearchHit[] = [];
    const sessions = (await this.allSessions()).filter(
      (s) => ofAgent(s, opts.source) && (!opts.project || s.project === opts.project),
    );
    const searched = sessions.slice(0, this.searchSessionLimit);
    const scanned = { searched: searched.length, of: sessions.length };
    for (const info of searched) {
      const ls = await this.load(info.id);
      for (const { entry: e, text, score } of sessionMatches(ls.session.entries, terms)) {
        hits.push({
          sessionId: info.id,
          entryId: e.id,
          source: info.source,
          project: info.project,
          role: e.kind === 'message' ? e.message.role : e.kind,
          snippet: snippetOf(text, marked).trim(),
          score,
          timestamp: e.timestamp,
        });
        if (hits.length >= limit) return { hits, scanned };
      }
    }
    return { hits, scanned };
  }

  /**
   * Tokens and cost per day, model, project and agent, counted per assistant response; the days are
   * `timeZone`'s (an IANA name: the reader's, whose From and To are local days too), else UTC's.
   */
  async stats(query: {
    source?: string;
    project?: string;
    since?: string;
    until?: string;
    timeZone?: string;
  }): Promise<StatsResult> {
    const { timeZone, ...rest } = query;
    const filter = { ...rest, ...timeWindow(rest, timeZone) };
    const dayOf = dayIn(timeZone);
    const sessions = (await this.allSessions()).filter(
      (s) =>
        ofAgent(s, filter.source) &&
        (!filter.project || s.project === filter.project) &&
        (!filter.since || s.updatedAt >= filter.since) &&
        (!filter.until || s.createdAt <= filter.until),
    );
    const totals = emptyBucket('total');
    const byDay = new Map<string, StatsBucket>();
    const byModel = new Map<string, StatsBucket>();
    const byProject = new Map<string, StatsBucket>();
    const bySource = new Map<string, StatsBucket>();
    const merge = (m: Map<string, StatsBucket>, key: string, c: StatsBucket) => {
      let b = m.get(key);
      if (!b) {
        b = emptyBucket(key);
        m.set(key, b);
      }
      mergeBucket(b, c);
    };
    // Per message (exact days and models) while that means loading few sessions; past that, counted
    // in the store where it can (costBuckets: the same per-response numbers, no session read), else
    // each session's own totals on its last day, per model where the listing has them.
    const perMessage = sessions.length <= this.statsSessionLimit;
    if (!perMessage && this.driver.costBuckets)
      return this.storeStats(this.driver.costBuckets.bind(this.driver), filter, sessions, timeZone);
    // Per message, a response copied into several sessions (a fork's copy, a conversion's) counts
    // once, in the copy the index counts: the session created first, then by copyRank, then no fork first.
    const window: ResponseWindow = { since: filter.since, until: filter.until };
    const winners = perMessage ? await this.countingCopies(sessions, window) : undefined;
    // per session: each session's cost per model as the store prices it request by request (as
    // `stats --by session`: long-prompt band, speed, place), where it can (SessionDriver.sessionCosts)
    const exact = perMessage || !sessions.length ? undefined : await this.indexCosts(sessions);
    let estimatedCost = 0;
    for (const info of sessions) {
      let cells: Map<string, StatsBucket>;
      if (winners) {
        // per message, only the responses inside the window count (as `stats --since/--until`)
        const counts = (r: CountedRecord) => inWindow(r.timestamp, window) && winners.get(r.copyKey) === info;
        const records = await this.countedRecordsOf(info);
        cells = cellsOf(records, dayOf, counts);
        for (const r of records) if (r.priced && counts(r)) estimatedCost += r.cost ?? 0;
      } else {
        const cost = exact?.get(costKey(info.source, info.id));
        cells = sessionLevelCells(info, this.prices, dayOf, cost);
        let sum = 0;
        for (const c of cells.values()) sum += c.cost;
        // what is more than the recorded cost was priced (as the list marks a session's cost)
        estimatedCost += cost || !info.cost ? Math.max(0, sum - (info.cost ?? 0)) : 0;
      }
      for (const [k, c] of cells) {
        const [day, model] = k.split('|') as [string, string];
        mergeBucket(totals, c);
        merge(byDay, day, c);
        merge(byModel, model, c);
        merge(byProject, info.project ?? '(none)', c);
        merge(bySource, agentOf(info), c);
      }
    }
    const byCost = (m: Map<string, StatsBucket>) =>
      [...m.values()].sort((a, b) => b.cost - a.cost || totalTokens(b) - totalTokens(a));
    return {
      totals,
      estimatedCost,
      granularity: perMessage ? 'message' : 'session',
      dayZone: timeZone ?? 'UTC',
      sessions: sessions.length,
      byDay: [...byDay.values()].sort((a, b) => (a.key < b.key ? -1 : 1)),
      byModel: byCost(byModel),
      byProject: byCost(byProject),
      bySource: byCost(bySource),
    };
  }

  /**
   * The store's costBuckets by agent, as the per-message charts count them (agentOf): a session stored
   * as threadbase's own from an agent's (every session pushed to a team server) under that agent, not
   * under "threadbase", the store's source. Each response still counts once: an agent's share is what
   * its sessions add to those counted before them (the agents' own first), so the shares sum to the
   * whole; a response copied between two agents' pushed sessions goes to the first asked of the two.
   */
  private async agentBuckets(
    costBuckets: NonNullable<SessionDriver['costBuckets']>,
    selected: SessionFilter,
    sessions: readonly SessionInfo[],
  ): Promise<StatsBucket[]> {
    const idsByAgent = new Map<string, string[]>();
    for (const s of sessions) {
      const agent = agentOf(s);
      if (agent !== s.source) idsByAgent.set(agent, [...(idsByAgent.get(agent) ?? []), s.id]);
    }
    if (idsByAgent.size === 0) return costBuckets('source', selected, this.prices);
    const imported = new Set([...idsByAgent.values()].flat());
    let counted = sessions.filter((s) => !imported.has(s.id)).map((s) => s.id);
    const byAgent = new Map<string, StatsBucket>();
    const add = (b: StatsBucket, sign: 1 | -1) => {
      const into = byAgent.get(b.key) ?? emptyBucket(b.key);
      mergeBucket(into, b, sign);
      byAgent.set(b.key, into);
    };
    let before: StatsBucket[] = counted.length ? await costBuckets('source', selected, this.prices, counted) : [];
    for (const b of before) add(b, 1);
    for (const [agent, ids] of idsByAgent) {
      counted = [...counted, ...ids];
      const after = await costBuckets('source', selected, this.prices, counted);
      for (const b of after) add({ ...b, key: agent }, 1);
      for (const b of before) add({ ...b, key: agent }, -1);
      before = after;
    }
    return [...byAgent.values()].filter((b) => b.responses > 0);
  }

  /**
   * stats from the store's costBuckets over the filter's sessions (`sessions`, as listed): per
   * response, a copy once, split by time (a response outside since/until is in no session's count).
   */
  private async storeStats(
    costBuckets: NonNullable<SessionDriver['costBuckets']>,
    filter: { source?: string; project?: string; since?: string; until?: string },
    sessions: readonly SessionInfo[],
    timeZone: string | undefined,
  ): Promise<StatsResult> {
    const { source, project, since, until } = filter;
    const selected = {
      ...(source ? { source } : {}),
      ...(project ? { project } : {}),
      ...(since ? { since } : {}),
      ...(until ? { until } : {}),
    };
    const of = async (by: CostBucketKey, named: (key: string) => string) =>
      (await costBuckets(by, selected, this.prices, undefined, by === 'day' ? timeZone : undefined)).map((b) => ({
        ...b,
        key: named(b.key),
      }));
    const asIs = (k: string) => k;
    const [byDay, byModel, byProject, bySource, summary] = await Promise.all([
      of('day', asIs),
      // as the per-message charts name them
      of('model', (k) => (k === 'unknown' ? '(unknown)' : k)),
      of('project', (k) => k || '(none)'),
      this.agentBuckets(costBuckets, selected, sessions),
      // the priced part, counted as the buckets are (every store with costBuckets has costSummary)
      this.driver.costSummary?.(selected, this.prices),
    ]);
    const totals = emptyBucket('total');
    for (const b of byDay) mergeBucket(totals, b);
    const byCost = (list: StatsBucket[]) => [...list].sort((a, b) => b.cost - a.cost || totalTokens(b) - totalTokens(a));
    return {
      totals,
      estimatedCost: summary?.cost ?? 0,
      granularity: 'message',
      // the store counts the reader's days (costBuckets' zone)
      dayZone: timeZone ?? 'UTC',
      sessions: sessions.length,
      byDay: [...byDay].sort((a, b) => (a.key < b.key ? -1 : 1)),
      byModel: byCost(byModel),
      byProject: byCost(byProject),
      bySource: byCost(bySource),
    };
  }

  /** For each copy key, the session whose record counts (CopyChoice: the rule settleCopies applies in SQL). */
  private async countingCopies(sessions: readonly SessionInfo[], window: ResponseWindow): Promise<CopyChoice<SessionInfo>> {
    const choice = new CopyChoice<SessionInfo>();
    for (const info of sessions) {
      for (const r of await this.countedRecordsOf(info))
        if (inWindow(r.timestamp, window)) choice.offer(r.copyKey, info, r.copyRank, info);
    }
    return choice;
  }

  private async countedRecordsOf(info: SessionInfo): Promise<CountedRecord[]> {
    const hit = this.usageCells.get(`${info.source}:${info.id}`);
    if (hit && hit.updatedAt === info.updatedAt) return hit.records;
    const session = await this.driver.getSession(info.id);
    const records: CountedRecord[] = [];
    // One response split over several records counts once, on the record `stats` counts.
    const counted = countedUsage(session?.entries ?? []);
    for (const e of session?.entries ?? []) {
      const m = counted.get(e.id);
      if (!m) continue;
      const copyKey = copyKeyOf(e, info.id);
      const copyRank = copyRankOf(m);
      // each model's part (an advisor request's under its own model); a recorded cost covers them all
      costPerModel(this.prices, m).forEach((part, i) => {
        records.push({
          copyKey,
          copyRank,
          timestamp: e.timestamp,
          at: e.timestamp || info.createdAt,
          model: part.model ?? '(unknown)',
          usage: part.usage,
          cost: part.cost ?? 0,
          priced: part.priced,
          ...(i > 0 ? { advisor: true } : {}),
        });
      });
    }
    this.usageCells.set(`${info.source}:${info.id}`, { updatedAt: info.updatedAt, records });
    return records;
  }
}

/**
 * A session's records in day|model buckets, days as `dayOf` names them; with `counts`, a copy that
 * another session's record counts for is left out.
 */
function cellsOf(
  records: readonly CountedRecord[],
  dayOf: (iso: string) => string,
  counts?: (r: CountedRecord) => boolean,
): Map<string, StatsBucket> {
  const cells = new Map<string, StatsBucket>();
  for (const r of records) {
    if (counts && !counts(r)) continue;
    const cell = `${dayOf(r.at)}|${r.model}`;
    let b = cells.get(cell);
    if (!b) {
      b = emptyBucket(cell);
      cells.set(cell, b);
    }
    addTo(b, r.usage, r.cost, r.advisor ? 0 : 1);
  }
  return cells;
}

/**
 * A session's tokens and cost on its last day, per model where the listing has them. `exact`: its
 * cost per model as the store prices it request by request; without it, each model's tokens summed
 * and priced as one request (long-prompt rates, fast mode and place of inference then go amiss).
 */
function sessionLevelCells(
  info: SessionInfo,
  prices: PriceTable,
  dayOf: (iso: string) => string,
  exact?: SessionCost,
): Map<string, StatsBucket> {
  const day = dayOf(info.updatedAt);
  const out = new Map<string, StatsBucket>();
  const byModel: [string, Usage | undefined][] = Object.entries(info.usageByModel ?? {});
  const exactByModel = exact?.costByModel;
  if (exactByModel) {
    // the store's cost of every model, a model the listing shows no tokens of (cost only) included
    if (!byModel.length) byModel.push([info.models?.[0] ?? '', info.usage]);
    for (const model of Object.keys(exactByModel)) if (!byModel.some(([m]) => m === model)) byModel.push([model, undefined]);
    byModel.forEach(([model, usage], i) => {
      const key = `${day}|${model || '(unknown)'}`;
      const b = out.get(key) ?? emptyBucket(key);
      addTo(b, usage, exactByModel[model] ?? 0, i === 0 ? 1 : 0);
      out.set(key, b);
    });
    return out;
  }
  if (byModel.length && !info.cost) {
    // tokens per model, each priced at its own price (the session's responses are counted once, in the first)
    byModel.forEach(([model, usage], i) => {
      const key = `${day}|${model || '(unknown)'}`;
      const b = out.get(key) ?? emptyBucket(key);
      addTo(b, usage, costOrPriced(prices, undefined, usage, model || undefined));
      if (i > 0) b.responses--;
      out.set(key, b);
    });
    return out;
  }
  const key = `${day}|${info.models?.[0] ?? '(unknown)'}`;
  const b = emptyBucket(key);
  addTo(b, info.usage, costOrPriced(prices, info.cost, info.usage, info.models?.[0]));
  return new Map([[key, b]]);
}

/** Adds `from` into `into`; sign -1 takes it away (agentBuckets: an agent's share is what its sessions add). */
function mergeBucket(into: StatsBucket, from: StatsBucket, sign: 1 | -1 = 1): void {
  into.input += sign * from.input;
  into.output += sign * from.output;
  into.cacheRead += sign * from.cacheRead;
  into.cacheWrite += sign * from.cacheWrite;
  into.reasoning += sign * from.reasoning;
  into.cost += sign * from.cost;
  into.responses += sign * from.responses;
}

/** The entry as the browser gets it; `shownOn`: the record that shows its response's usage, when another. */
export function viewOf(e: Entry, shownOn?: string): EntryView {
  const { raw: _raw, rawSource: _rawSource, ...rest } = e;
  const injected = e.kind === 'message' ? injectedLabel(e.message) : undefined;
  return { ...rest, ...(injected ? { injected } : {}), ...(shownOn ? { usageShownOn: shownOn } : {}) };
}

/**
 * For each record of a response split over several records (one responseId) that is not the one
 * whose usage counts (countedUsage, as `stats` counts each response once), that record's id: the
 * viewer shows the response's tokens there only. Over the entries shown (a path, a context), so the
 * record that shows them is always among them.
 */
function usageShownOn(entries: readonly Entry[]): Map<string, string> {
  const counted = countedUsage(entries);
  const countedFor = new Map<string, string>();
  for (const e of entries) {
    const responseId = responseRecordOf(e)?.responseId;
    if (responseId && counted.has(e.id)) countedFor.set(responseId, e.id);
  }
  const out = new Map<string, string>();
  for (const e of entries) {
    const r = responseRecordOf(e);
    if (!r?.responseId || counted.has(e.id) || (r.usage === undefined && r.cost === undefined)) continue;
    const on = countedFor.get(r.responseId);
    if (on) out.set(e.id, on);
  }
  return out;
}

/** The ids of the tool calls among `entries`. */
function toolCallIdsOf(entries: readonly Entry[]): Set<string> {
  const calls = new Set<string>();
  for (const e of entries) if (e.kind === 'message') for (const p of e.message.parts) if (p.type === 'tool_call') calls.add(p.id);
  return calls;
}

/**
 * The tool results a page (of a path or a context) shows: each call's result from `results`, shown with
 * the call; and the results on the page whose call `isShownCall` says is among the entries paged, which
 * the viewer shows there and not again on their own.
 */
function pageToolResults(
  page: readonly Entry[],
  results: ReadonlyMap<string, ToolResultPart>,
  isShownCall: (callId: string) => boolean,
): { toolResults: Record<string, ToolResultPart>; pairedResultIds: string[] } {
  const toolResults: Record<string, ToolResultPart> = {};
  const paired = new Set<string>();
  for (const e of page) {
    if (e.kind !== 'message') continue;
    for (const p of e.message.parts) {
      if (p.type === 'tool_call') {
        const r = results.get(p.id);
        if (r) toolResults[p.id] = r;
      } else if (p.type === 'tool_result' && isShownCall(p.callId)) paired.add(p.callId);
    }
  }
  return { toolResults, pairedResultIds: [...paired] };
}

/** The searchable text of an entry: message text, tool inputs and outputs, summaries. */
export function entryText(e: Entry): string {
  if (e.kind === 'compaction' || e.kind === 'branch_summary') return e.summary;
  if (e.kind !== 'message') return '';
  const out: string[] = [];
  for (const p of e.message.parts) {
    if (p.type === 'text') out.push(p.text);
    else if (p.type === 'tool_call') out.push(JSON.stringify(p.input));
    else if (p.type === 'tool_result') {
      out.push(typeof p.content === 'string' ? p.content : p.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n'));
    } else if (p.type === 'thinking') out.push(p.thinking);
  }
  return out.join('\n');
}
