/** What Claude Code cannot keep of a session converted into it (CONVERT.md, "What survives, per target"). */

import { sayRewordedResults } from '../../convert/declined.js';
import type { LossReport } from '../../convert/losses.js';
import { claudeDeclinedMark } from './denials.js';
import { callsLast } from './reply.js';

export function describeClaudeLosses(report: LossReport): void {
  const { session, counts: c, foreign, say, line } = report;
  say(c.costs, 'Claude Code records no cost per message; recorded costs dropped (threadbase prices tokens instead)');
  const others = [...c.providers].filter((p) => p !== 'anthropic');
  if (others.length) line(`Claude Code records no provider; providers ${others.join(', ')} dropped`);
  say(
    c.unsignedThinking,
    'unsigned thinking written as text (Claude Code replays only signed thinking; kept as thinking in a field it ignores, for the way back)',
  );
  const models = [...new Set(session.entries.flatMap((e) => (e.kind === 'message' && e.message.model ? [e.message.model] : [])))];
  say(
    c.signedThinking,
    `thinking is kept with its signature, but Claude Code leaves it out when resumed with another model (resume with --model ${models.at(-1) ?? '<the source model>'})`,
  );
  const callsMoved = foreign.filter(
    (e) => e.kind === 'message' && e.message.role === 'assistant' && callsLast(e.message.parts, (p) => p) !== e.message.parts,
  ).length;
  say(callsMoved, 'replies with text after a tool call: Claude Code sends their calls after the text when it resumes');
  say(
    c.providerCalls,
    "searches the provider ran itself (codex's web searches) written as a text note Claude Code sends in their turn (their results stayed with the provider; the call kept for the way back)",
  );
  say(
    c.assistantImages,
    "images the assistant made have no place in Claude Code's assistant messages (the Messages API takes images only from the user); written as a text note, kept for the way back",
  );
  sayRewordedResults(report, 'Claude Code', (text) => claudeDeclinedMark(undefined, text), 'it sends');
  // system messages: the encoder says each one left out on every write (encode.ts)
  say(c.modelChanges, 'model/thinking-level changes have no Claude Code record; left out');
  say(c.labels, 'labels have no Claude Code record; left out');
  say(c.foreignMetadata, "another agent's metadata records have no Claude Code form; left out");
}
