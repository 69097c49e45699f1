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
  return changed ? out : [...entries];
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
