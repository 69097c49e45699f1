/** What pi cannot keep of a session converted into it (CONVERT.md, "What survives, per target"). */
import { sayRewordedResults } from '../../convert/declined.js';
import type { LossReport } from '../../convert/losses.js';
import { piDeclinedMark } from './denials.js';

export function describePiLosses(report: LossReport): void {
  const { counts: c, say } = report;
  sayRewordedResults(report, 'pi', piDeclinedMark);
  say(
    c.signedThinking + c.unsignedThinking,
    'thinking is kept with its signature; pi replays it as thinking only to the model that recorded it, to another model as plain text',
  );
  say(c.redacted, 'redacted thinking is kept, but pi drops it when resuming with another model');
  // reasoning tokens, 1-hour cache writes and the price terms go in a usage field pi ignores (records.ts)
  say(
    c.assistantImages,
    "images the assistant made have no place in pi's assistant messages; written as a text note, kept for the way back",
  );
  say(
    c.providerCalls,
    "searches the provider ran itself (codex's web searches) written as a text note pi sends in their turn (their results stayed with the provider; the call kept for the way back)",
  );
  // images by URL and system messages: the encoder says those of each entry on every write (encode.ts)
  say(c.foreignMetadata, "another agent's metadata kept as pi custom entries (pi ignores them)");
}
