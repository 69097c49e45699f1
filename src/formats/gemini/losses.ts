/** What Gemini CLI cannot keep of a session converted into it (CONVERT.md, "What survives, per target"). */
import type { LossReport } from '../../convert/losses.js';

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
  // model changes, labels, metadata records and calls without a result: the encoder says those on
  // every write, converted or not (encode.ts), each kind with how many, so they are not said here again
  say(
    c.providerCalls,
    "searches the provider ran itself (codex's web searches) written as a text note Gemini CLI sends in their turn (the call kept for the way back)",
  );
}
