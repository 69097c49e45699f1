/**
 * Model messages → the message shapes pi hands to its model layer (what pi's convertToLlm returns
 * after buildSessionContext). Used to prove threadbase's context equals pi's own, and by anyone
 * who wants to feed a threadbase context to pi-ai.
 */
import type { Message } from '../../model/types.js';
import { encodeEntries } from './encode.js';
import type { PiLlmMessage } from './records.js';
import { isRecord } from './records.js';

export function messagesToPi(messages: readonly Message[]): { messages: PiLlmMessage[]; warnings: string[] } {
  let parentId: string | null = null;
  const entries = messages.map((message, i) => {
    const id = `m${i}`;
    // Without a raw record the encoder writes each message from its model fields.
    const e = {
      id,
      parentId,
      timestamp: new Date(0).toISOString(),
      kind: 'message' as const,
      message: { ...message, responseId: undefined },
    };
    parentId = id;
    return e;
  });
  const { records, warnings } = encodeEntries(entries);
  const out: PiLlmMessage[] = [];
  for (const r of records) if (isRecord(r.message)) out.push(r.message as PiLlmMessage);
  return { messages: out, warnings };
}
