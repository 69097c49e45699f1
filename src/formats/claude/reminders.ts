/**
 * What Claude Code adds to the conversation from its `attachment` records (hook output, plan mode):
 * it records each such addition as an attachment record on the chain and, 2.1.332 (seen live,
 * test/agents/claude-additions-hooks.test.ts), sends it in the request as a `role: "system"` message
 * after the turn it came with; the record keeps the words as `rendered: [{content}]`, wrapped in
 * `<system-reminder>` (the form it sends a meta note in when it sends it as the user's),
 * `renderedRole: "system"`. threadbase's model keeps the record as a metadata entry. Another agent (pi,
 * OpenCode, Codex, …) has no such record: the entry goes into it as a user message in the rendered
 * words (claudeSentEntries, registered with convert/sent-wording.ts), so its model is sent what
 * Claude Code's was; a user message in those words that comes back into Claude Code is its
 * attachment record again where its words say which (hook output), else a meta user record
 * (claudeReminderRecord), never both.
 * The harness's own additions (environment, model identity, tool/agent/skill listings, date,
 * attribution) are not carried: the other agent sends its own of each.
 */
import type { Entry, Message } from '../../model/types.js';
import { isRecord } from './parse.js';

/** The attachment kinds that are events of the session the model was told of, not the harness's view of the machine. */
const CARRIED = new Set([
  'hook_additional_context',
  'hook_success',
  'hook_blocking_error',
  'hook_stopped_continuation',
  'plan_mode',
  'plan_mode_reentry',
  'plan_mode_exit',
  'plan_file_reference',
  'critical_system_reminder',
]);

const OPEN = '<system-reminder>\n';
const CLOSE = '\n</system-reminder>';

const wrapped = (text: string) => `${OPEN}${text}${CLOSE}`;

function isWrapped(text: string): boolean {
  return text.length >= OPEN.length + CLOSE.length && text.startsWith(OPEN) && text.endsWith(CLOSE);
}

/** The texts of a record's `rendered` (each `{content}` a string or text blocks). */
function renderedTexts(rendered: unknown): string[] {
  if (!Array.isArray(rendered)) return [];
  return rendered.flatMap((r): string[] => {
    const c = isRecord(r) ? r.content : undefined;
    if (typeof c === 'string') return [c];
    if (Array.isArray(c))
      return c.flatMap((b) => (isRecord(b) && b.type === 'text' && typeof b.text === 'string' ? [b.text] : []));
    return [];
  });
}

/**
 * The words Claude Code sends for a carried attachment record, as the user's (wrapped): its `rendered`
 * texts; for hook context recorded before `rendered` was, in Claude Code's words for it.
 */
export function claudeAdditionTexts(record: unknown): string[] {
  if (!isRecord(record) || record.type !== 'attachment' || !isRecord(record.attachment)) return [];
  const a = record.attachment;
  if (typeof a.type !== 'string' || !CARRIED.has(a.type)) return [];
  const texts = renderedTexts(record.rendered).filter((t) => t.trim() !== '');
  if (texts.length || 'rendered' in record) return texts;
  if (a.type === 'hook_additional_context' && typeof a.hookName === 'string' && Array.isArray(a.content) && a.content.length)
    return [wrapped(`${a.hookName} hook additional context: ${a.content.map(String).join('\n')}`)];
  return [];
}

/**
 * Entries as another agent holds what Claude Code sent: each carried attachment a user message in
 * its rendered words, where it was on the chain (meta.claude.attachment says which kind).
 */
export function claudeSentEntries(entries: readonly Entry[]): Entry[] {
  let changed = false;
  const out = entries.map((e): Entry => {
    if (e.kind !== 'metadata' || e.rawSource !== 'claude' || e.type !== 'attachment') return e;
    const texts = claudeAdditionTexts(e.raw);
    if (!texts.length) return e;
    changed = true;
    const kind = isRecord(e.data) ? e.data.type : undefined;
    return {
      kind: 'message',
      id: e.id,
      parentId: e.parentId,
      timestamp: e.timestamp,
      ...(e.sidechain ? { sidechain: true } : {}),
      message: {
        role: 'user',
        parts: texts.map((text) => ({ type: 'text', text })),
        meta: { claude: { attachment: kind, isMeta: true } },
      },
    };
  });
  return changed ? promptFirst(out, new Set(out.filter((e, i) => e !== entries[i]))) : [...entries];
}

/**
 * The entries with the additions before a chain's first prompt (SessionStart hook output, and the
 * records between) after it: Claude Code 2.1.332 sends them after that prompt (in its system message,
 * test/agents/claude-additions-context.test.ts), so the other agent gets them in that order too. The
 * run is relinked (the prompt where it began, the run under the prompt, the prompt's children under the
 * run's last) and put after the prompt in the list.
 */
function promptFirst(entries: Entry[], made: ReadonlySet<Entry>): Entry[] {
  const children = new Map<string | null, Entry[]>();
  for (const e of entries) children.set(e.parentId, [...(children.get(e.parentId) ?? []), e]);
  let out = entries;
  for (const root of children.get(null) ?? []) {
    const run: Entry[] = [];
    let at: Entry | undefined = root;
    while (at && (at.kind === 'metadata' || made.has(at))) {
      run.push(at);
      const kids: Entry[] = children.get(at.id) ?? [];
      at = kids.length === 1 ? kids[0] : undefined;
    }
    const prompt = at;
    const last = run.at(-1);
    if (!prompt || !last || prompt.kind !== 'message' || prompt.message.role !== 'user' || !run.some((e) => made.has(e)))
      continue;
    const first = run[0] as Entry;
    const moved = new Map<Entry, Entry>([
      [prompt, { ...prompt, parentId: first.parentId }],
      [first, { ...first, parentId: prompt.id }],
    ]);
    for (const kid of children.get(prompt.id) ?? []) moved.set(kid, { ...kid, parentId: last.id });
    const relinked = out.map((e) => moved.get(e) ?? e);
    const p = moved.get(prompt) as Entry;
    const without = relinked.filter((e) => e !== p);
    without.splice(
      without.findIndex((e) => e === (moved.get(first) ?? first)),
      0,
      p,
    );
    out = without;
  }
  return out;
}

/** Hook output in the words Claude Code renders it, and the attachment it renders them from. */
const HOOK_WORDS: { re: RegExp; attachment: (hookName: string, text: string) => Record<string, unknown> }[] = [
  {
    re: /^(\S+) hook additional context: ([\s\S]*)$/,
    attachment: (hookName, text) => ({
      type: 'hook_additional_context',
      content: [text],
      hookName,
      toolUseID: hookName,
      hookEvent: hookName,
    }),
  },
  {
    re: /^(\S+) hook success: ([\s\S]+)$/,
    attachment: (hookName, text) => ({
      type: 'hook_success',
      hookName,
      toolUseID: hookName,
      hookEvent: hookName.split(':')[0],
      content: text,
      stdout: text,
      stderr: '',
      exitCode: 0,
    }),
  },
];

/**
 * How Claude Code's other carried additions begin (plan mode, its re-entry and exit, the plan file; a
 * hook's blocking error or stopped continuation): a reminder in these words is its meta note, one in
 * other words (another agent's own reminders: OpenCode's, Kilo's) stays that agent's user message.
 */
const OTHER_ADDITION =
  /^(?:Plan mode is active|## Re-entering Plan Mode|## Exited Plan Mode|A plan (?:file )?exists from plan mode|\S+ hook (?:blocking error from command|stopped continuation): )/;

/**
 * The record fields (past the common ones) a user message gets when it is in the words Claude Code
 * sends one of its additions in (another agent's copy): hook output its attachment record again, which
 * Claude Code renders as it did the original; another of its additions (plan mode) a meta user record
 * (sent as the user's, as it is); undefined for any other message.
 */
export function claudeReminderRecord(m: Message): Record<string, unknown> | undefined {
  if (m.role !== 'user' || !m.parts.length) return undefined;
  const texts = m.parts.flatMap((p) => (p.type === 'text' ? [p.text] : []));
  if (texts.length !== m.parts.length || !texts.every(isWrapped)) return undefined;
  const [only] = texts;
  if (texts.length === 1 && only !== undefined) {
    const inner = only.slice(OPEN.length, only.length - CLOSE.length);
    for (const { re, attachment } of HOOK_WORDS) {
      const hit = re.exec(inner);
      if (hit?.[1] && hit[2] !== undefined)
        return {
          type: 'attachment',
          attachment: attachment(hit[1], hit[2]),
          rendered: [{ content: only }],
          renderedRole: 'system',
        };
    }
  }
  if (!texts.every((t) => OTHER_ADDITION.test(t.slice(OPEN.length)))) return undefined;
  return {
    type: 'user',
    message: { role: 'user', content: texts.length === 1 ? only : texts.map((text) => ({ type: 'text', text })) },
    isMeta: true,
  };
}

/** The meta key (claudeContext's own, never in its result) naming the additions sent after a user turn. */
const SENT_AFTER = 'claudeAdditionsAfter';

const unwrapped = (t: string) => (isWrapped(t) ? t.slice(OPEN.length, t.length - CLOSE.length) : t);

/**
 * A session's carried additions (claudeSentEntries) made messages for buildContext, and for each such
 * message the words Claude Code sends for it in its system message (unwrapped).
 */
export function claudeAdditionMessages(entries: readonly Entry[]): { entries: Entry[]; additions: Map<Message, string[]> } {
  const made = claudeSentEntries(entries);
  const metadata = new Set(entries.flatMap((e) => (e.kind === 'metadata' ? [e.id] : [])));
  const additions = new Map<Message, string[]>();
  for (const e of made)
    if (e.kind === 'message' && metadata.has(e.id))
      additions.set(
        e.message,
        e.message.parts.flatMap((p) => (p.type === 'text' ? [unwrapped(p.text)] : [])),
      );
  return { entries: made, additions };
}

const isUserSide = (m: Message) => m.role === 'user' || m.role === 'tool';

/**
 * The context's messages without the additions, the words of each on the user-side message of the turn
 * Claude Code 2.1.332 sends them after (seen live, test/agents/claude-additions-context.test.ts): those
 * before a prompt (SessionStart's, before the first) and those after it up to the reply go after its
 * turn, those after tool results after theirs.
 */
export function withAdditionsMarked(messages: readonly Message[], additions: ReadonlyMap<Message, string[]>): Message[] {
  if (!additions.size) return [...messages];
  const out: Message[] = [];
  let pending: string[] = [];
  let lastUser = -1;
  const flush = () => {
    const m = out[lastUser];
    if (!pending.length || !m) return;
    const earlier = Array.isArray(m.meta?.[SENT_AFTER]) ? (m.meta[SENT_AFTER] as string[]) : [];
    out[lastUser] = { ...m, meta: { ...m.meta, [SENT_AFTER]: [...earlier, ...pending] } };
    pending = [];
  };
  for (const m of messages) {
    const texts = additions.get(m);
    if (texts) {
      pending.push(...texts);
      continue;
    }
    if (m.role === 'assistant') flush();
    out.push(m);
    if (isUserSide(m)) lastUser = out.length - 1;
  }
  flush();
  return out;
}

/**
 * Each user turn (consecutive user-side messages) followed by the additions marked on it as Claude Code
 * sends them: one `system` message, their words joined by a blank line (its other system attachments,
 * the harness's own, left out); the marks taken off.
 */
export function withAdditionsPlaced(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  let after: string[] = [];
  const put = () => {
    if (after.length)
      out.push({ role: 'system', parts: [{ type: 'text', text: after.join('\n\n') }], meta: { claude: { attachments: true } } });
    after = [];
  };
  messages.forEach((m, i) => {
    const texts = m.meta?.[SENT_AFTER];
    if (Array.isArray(texts)) {
      const { [SENT_AFTER]: _a, ...meta } = m.meta ?? {};
      out.push(Object.keys(meta).length ? { ...m, meta } : (({ meta: _m, ...rest }) => rest)(m));
      after.push(...(texts as string[]));
    } else out.push(m);
    const next = messages[i + 1];
    if (isUserSide(m) && (!next || !isUserSide(next))) put();
  });
  put();
  return out;
}
