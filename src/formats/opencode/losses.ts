/** What OpenCode cannot keep of a session converted into it (CONVERT.md, "What survives, per target"). */
import { sayRewordedResults } from '../../convert/declined.js';
import type { LossDescriber, LossReport } from '../../convert/losses.js';
import { opencodeDeclinedMark } from './denials.js';

/** What an agent keeping OpenCode's records (OpenCode, or a fork of it named `label`) cannot keep. */
export function describeLossesAs(label: string): LossDescriber {
  return (report) => {
    const { counts: c, say } = report;
    describe(label, c, say);
    sayRewordedResults(report, label, (text) => opencodeDeclinedMark(text, false), 'it sends');
  };
}

export const describeOpenCodeLosses: LossDescriber = describeLossesAs('OpenCode');

function describe(label: string, c: LossReport['counts'], say: LossReport['say']): void {
  say(
    c.signedThinking + c.unsignedThinking,
    `thinking is kept with its signature, but ${label} replays reasoning recorded by another model as plain text`,
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
