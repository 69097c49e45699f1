/** What OpenCode cannot keep of a session converted into it (CONVERT.md, "What survives, per target"). */
import { sayRewordedResults } from '../../convert/declined.js';
import type { LossDescriber, LossReport } from '../../convert/losses.js';
import type { Part } from '../../model/types.js';
import { isThinkingOpenCodeDrops } from './context.js';
import { opencodeDeclinedMark } from './denials.js';
import { plainTextOf } from './parse.js';

/** What an agent keeping OpenCode's records (OpenCode, or a fork of it named `label`) cannot keep. */
export function describeLossesAs(label: string): LossDescriber {
  return (report) => {
    describe(label, report);
    sayTextFiles(label, report);
    sayRewordedResults(report, label, (text) => opencodeDeclinedMark(text, false), 'it sends');
  };
}

export const describeOpenCodeLosses: LossDescriber = describeLossesAs('OpenCode');

function describe(label: string, report: LossReport): void {
  const { counts: c, say } = report;
  // another agent's thinking with no signature or provider data: the AI SDK providers drop it (context.ts)
  const dropped = report.foreign
    .flatMap((e) => (e.kind === 'message' && e.message.role === 'assistant' ? e.message.parts : []))
    .filter((p) => isThinkingOpenCodeDrops(p) && p.thinking.trim() !== '').length;
  say(
    c.signedThinking + c.unsignedThinking - dropped,
    `thinking is kept with its signature, but ${label} replays reasoning recorded by another model as plain text`,
  );
  say(
    dropped,
    `thinking without a signature (another agent's) is kept, but ${label} does not send it when it resumes on the model that recorded it (its AI SDK provider drops it); a reply of such thinking only is written as text, which it sends`,
  );
  // 1-hour cache writes and the price terms go in a tokens field OpenCode ignores (encode.ts)
  say(
    c.providerCalls,
    `searches the provider ran itself (codex's web searches) written as a text note ${label} sends in their turn (their results stayed with the provider; the call kept for the way back)`,
  );
  say(
    c.assistantImages,
    `images the assistant made have no place in ${label}'s assistant messages; written as a text note, kept for the way back`,
  );
  // system messages: the encoder says each one left out on every write (encode.ts)
  say(c.modelChanges, `model/thinking-level changes have no ${label} record; left out`);
  say(c.labels, `labels have no ${label} record; left out`);
  say(c.foreignMetadata, `another agent's metadata records have no ${label} form; left out`);
}

/**
 * Plain-text files as OpenCode sends them (parse.ts asOpenCodeSends), each kept whole for the way back
 * (encode.ts): one of another text type as text/plain (OpenCode's Anthropic provider refuses a Markdown
 * file part), one in a tool result joined into the result's output without its name (the provider drops a
 * text/plain attachment of a result).
 */
function sayTextFiles(label: string, report: LossReport): void {
  let retyped = 0;
  let inResults = 0;
  const file = (p: Part, inResult: boolean) => {
    if (p.type !== 'file' || plainTextOf(p) === undefined) return;
    if (inResult) inResults++;
    else if (p.mediaType !== 'text/plain') retyped++;
  };
  for (const e of report.foreign) {
    if (e.kind !== 'message') continue;
    for (const p of e.message.parts) {
      if (p.type === 'tool_result' && Array.isArray(p.content)) for (const x of p.content) file(x, true);
      else file(p, false);
    }
  }
  report.say(
    retyped,
    `plain-text files of another type (Markdown) are recorded and sent as text/plain in ${label}, as it sends a file it read; their type kept for the way back`,
  );
  report.say(
    inResults,
    `plain-text files in tool results are sent joined into the result's output text, without their names (${label} sends a result's text, then its images); kept whole for the way back`,
  );
}
