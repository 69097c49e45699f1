/** What Cline cannot keep of a session converted into it (CONVERT.md, "What survives, per target"). */
import { sayRewordedResults } from '../../convert/declined.js';
import type { LossReport } from '../../convert/losses.js';
import { pairToolCalls } from '../../model/tree.js';
import { clineDeclinedMark } from './denials.js';

export function describeClineLosses(report: LossReport): void {
  const { foreign, counts: c, say } = report;
  say(
    c.unsignedThinking,
    'thinking without a signature is kept, but Cline does not send it to the model on resume (it sends signed thinking only); a reply of such thinking only is written as text, which it sends',
  );
  // system messages: the encoder says those on every write (encode.ts), so they are not said here again
  say(c.modelChanges, 'model/thinking-level changes have no Cline record; kept in a threadbase field it ignores');
  say(c.labels, 'labels have no Cline record; kept in a threadbase field it ignores');
  say(c.foreignMetadata, "another agent's metadata records have no Cline form; kept in a threadbase field it ignores");
  say(
    c.providerCalls,
    "searches the provider ran itself (codex's web searches) written as a text note Cline sends in their turn",
  );
  sayRewordedResults(report, 'Cline', clineDeclinedMark);
  const messages = foreign.flatMap((e) => (e.kind === 'message' ? [e.message] : []));
  const pairing = pairToolCalls(messages);
  say(
    pairing.orphanResults.length,
    'tool results without their call are sent to the model as text (the API refuses them as results); read back as results',
  );
  say(
    pairing.unanswered.length,
    "tool calls without a result are written with Cline's own error result for them ('Tool execution was interrupted before a result was produced.'), which Cline sends",
  );
}
