/** What Gemini CLI cannot keep of a session converted into it (CONVERT.md, "What survives, per target"). */
import type { LossReport } from '../../convert/losses.js';
import { isProviderExecuted } from '../../convert/provider-tools.js';
import { pairToolCalls } from '../../model/tree.js';

export function describeGeminiLosses({ foreign, counts: c, say }: LossReport): void {
  let commands = 0;
  for (const e of foreign) {
    if (e.kind !== 'message' || e.message.role !== 'user') continue;
    const text = e.message.parts
      .map((p) => (p.type === 'text' ? p.text : ''))
      .join('')
      .trim();
    if (text.startsWith('/') || text.startsWith('?')) commands++;
  }
  say(
    c.signedThinking + c.unsignedThinking + c.redacted,
    'thinking is kept as Gemini thoughts (a signature in a field Gemini CLI ignores), but Gemini CLI never sends thoughts back to the model',
  );
  say(
    commands,
    'user messages starting with / or ? are taken by Gemini CLI for commands: kept, but not sent to the model on resume',
  );
  say(c.systemMessages, 'Gemini CLI has no system messages; kept as info records it shows but does not send');
  say(c.costs, 'Gemini CLI records no cost per message; kept in a field it ignores (threadbase reads it back)');
  say(c.modelChanges, 'model/thinking-level changes have no Gemini CLI record; left out');
  say(c.labels, 'labels have no Gemini CLI record; left out');
  say(c.foreignMetadata, "another agent's metadata records have no Gemini CLI form; left out");
  say(
    c.providerCalls,
    "searches the provider ran itself (codex's web searches) written as a text note Gemini CLI sends in their turn (the call kept for the way back)",
  );
  const messages = foreign.flatMap((e) => (e.kind === 'message' ? [e.message] : []));
  say(
    pairToolCalls(messages).unanswered.filter((p) => !isProviderExecuted(p)).length,
    'tool calls without a result are written with an error result (the Gemini API needs one), which Gemini CLI sends',
  );
}
