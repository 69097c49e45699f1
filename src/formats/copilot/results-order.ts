/**
 * The main chain's results of a response in the order Copilot CLI sends them. Copilot CLI 1.0.102 records
 * a response's parallel calls' `tool.execution_complete` as each ends, and a user's message typed while
 * they ran (`delivery: "steering"`) among them; resumed, it sends the results in the order of the calls,
 * then that message (test/agents/copilot-steering.test.ts, test/agents/copilot-interrupted.test.ts). The
 * reader places the entries so (relinked, the events' ids and times kept), so that what any target
 * writes of them is what the model was sent.
 */
import type { Entry } from '../../model/types.js';

/** The response whose results are being read, kept across reads of an appended file. */
export interface ResultsSpan {
  /** its calls, in order */
  calls: string[];
  /** the highest call rank answered so far, and whether a user's message came among its results */
  maxRank: number;
  said: boolean;
}

/** What a main-chain entry is to the span: a response with calls opens one; a result or a user's message among them moves; `end` closes it. */
export type SpanRole = 'response' | 'result' | 'said' | 'end' | 'other';

export function spanRoleOf(entry: Entry, steering: boolean): SpanRole {
  if (entry.kind === 'compaction') return 'end';
  if (entry.kind === 'metadata') return entry.type === 'session.snapshot_rewind' ? 'end' : 'other';
  if (entry.kind !== 'message') return 'other';
  const m = entry.message;
  if (m.role === 'tool') return 'result';
  if (m.role === 'assistant') return m.parts.some((p) => p.type === 'tool_call') ? 'response' : 'end';
  if (m.role === 'user') return steering && !m.meta?.copilotInjected ? 'said' : 'end';
  return 'other';
}

export class ResultsOrder {
  /** the main entries of this read since the span's response, with their places in `entries` */
  private segment: { entry: Entry; at: number; role: SpanRole }[] = [];
  /** what reads before this one saw of the span still open */
  private readonly prior?: { maxRank: number; said: boolean };
  /** a result read now belongs before entries read before: the file is read whole again */
  wholeRead = false;

  constructor(
    private readonly state: { resultsSpan?: ResultsSpan; lastMain: string | null },
    private readonly entries: Entry[],
  ) {
    const s = state.resultsSpan;
    if (s) this.prior = { maxRank: s.maxRank, said: s.said };
  }

  /** Before a main entry of this role is linked: a response or an end closes the span (lastMain may change). */
  before(role: SpanRole): void {
    if (role === 'response' || role === 'end') this.close();
  }

  /** After a main entry is linked and about to be pushed at `at` in entries. */
  after(entry: Entry, at: number, role: SpanRole): void {
    if (role === 'response' && entry.kind === 'message') {
      const calls = entry.message.parts.flatMap((p) => (p.type === 'tool_call' ? [p.id] : []));
      this.state.resultsSpan = { calls, maxRank: -1, said: false };
      return;
    }
    const span = this.state.resultsSpan;
    if (!span || role === 'end') return;
    this.segment.push({ entry, at, role });
    if (role === 'result') {
      const rank = this.rank(entry, span);
      if (this.prior && (rank < this.prior.maxRank || this.prior.said)) this.wholeRead = true;
      span.maxRank = Math.max(span.maxRank, rank);
    } else if (role === 'said') span.said = true;
  }

  /** At the end of the read: this read's entries of the span still open placed (the span goes on). */
  finish(): void {
    this.place();
  }

  private close(): void {
    this.place();
    this.state.resultsSpan = undefined;
  }

  private rank(entry: Entry, span: ResultsSpan): number {
    if (entry.kind !== 'message') return span.calls.length;
    const ranks = entry.message.parts.map((p) => {
      const at = p.type === 'tool_result' ? span.calls.indexOf(p.callId) : -1;
      return at < 0 ? span.calls.length : at;
    });
    return Math.min(span.calls.length, ...ranks);
  }

  /** The segment's results in call order, then its user's messages, in the places they held; relinked. */
  private place(): void {
    const seg = this.segment;
    this.segment = [];
    const span = this.state.resultsSpan;
    if (!span || seg.length === 0) return;
    const slots = seg.flatMap((s, n) => (s.role === 'result' || s.role === 'said' ? [n] : []));
    const moving = slots.map((n) => seg[n] as (typeof seg)[number]);
    const order = (s: (typeof seg)[number]) => (s.role === 'said' ? span.calls.length + 1 : this.rank(s.entry, span));
    const sorted = moving.map((s, n) => ({ s, n })).sort((a, b) => order(a.s) - order(b.s) || a.n - b.n);
    if (sorted.every((x, n) => x.n === n)) return;
    const placed = [...seg];
    slots.forEach((slot, k) => {
      const s = (sorted[k] as { s: (typeof seg)[number] }).s;
      placed[slot] = s;
      this.entries[(seg[slot] as (typeof seg)[number]).at] = s.entry;
    });
    let parent = (seg[0] as (typeof seg)[number]).entry.parentId;
    for (const s of placed) {
      s.entry.parentId = parent;
      parent = s.entry.id;
    }
    this.state.lastMain = parent;
  }
}
