/** What codex cannot keep of a session converted into it (CONVERT.md, "Into Codex"). */
import { sayRewordedResults } from '../../convert/declined.js';
import type { LossReport } from '../../convert/losses.js';
import { codexDeclinedMark } from './denials.js';
import { isReplayableReasoning } from './encode.js';

export function describeCodexLosses(report: LossReport): void {
  const { foreign, counts: c, say } = report;
  sayRewordedResults(report, 'codex', codexDeclinedMark);
  let unsent = 0;
  for (const e of foreign) {
    if (e.kind !== 'message' || e.message.role !== 'assistant') continue;
    for (const p of e.message.parts)
      if (p.type === 'thinking' && p.thinking.trim() && !isReplayableReasoning(e.message, p)) unsent++;
  }
  say(
    unsent,
    "another model's thinking is kept in the rollout (an agent_reasoning event), but codex sends only OpenAI reasoning back to the model",
  );
  say(
    c.redacted,
    'redacted thinking has no codex form; kept in the rollout (an agent_reasoning event) but not sent to the model',
  );
  say(c.costs, 'codex records no cost per message; recorded costs dropped (threadbase prices tokens instead)');
  say(c.assistantImages, 'images in assistant messages have no Responses item; written as a text note');
  say(c.fileNotes, 'non-text files have no codex form; written as a text note');
  say(c.modelChanges, 'model/thinking-level changes have no codex record; left out');
  say(c.labels, 'labels have no codex record; left out');
  say(c.foreignMetadata, "another agent's metadata records have no codex form; left out");
}
