/** pi's thinkingSignature for a thinking part: written by encode.ts, and read by the context (context.ts) without the encoder. */
import type { ThinkingPart } from '../../model/types.js';
import { openaiItemId } from '../shared/openai-reasoning.js';
import { isRecord, thinkingSignatureKind } from './records.js';

/**
 * The thinkingSignature pi keeps for a thinking part in a message of `api` (the reverse of
 * parse.ts thinkingPart), or undefined. A value is only written where pi-ai reads that kind:
 * an Anthropic signature never lands in an OpenAI message, where pi would parse it as JSON.
 */
export function piThinkingSignature(p: ThinkingPart, api: string | undefined): string | undefined {
  const meta = p.meta ?? {};
  const kept = typeof meta.thinkingSignature === 'string' ? meta.thinkingSignature : undefined;
  switch (thinkingSignatureKind(api)) {
    case 'signature':
      return p.signature ?? kept;
    case 'google':
      return typeof meta.thoughtSignature === 'string' ? meta.thoughtSignature : kept;
    case 'responses': {
      const encrypted = typeof meta.encryptedContent === 'string' ? meta.encryptedContent : undefined;
      const itemId = openaiItemId(p);
      if (isRecord(meta.piReasoningItem)) {
        const item: Record<string, unknown> = { ...meta.piReasoningItem };
        if (encrypted !== undefined) item.encrypted_content = encrypted;
        if (itemId !== undefined) item.id = itemId;
        return JSON.stringify(item);
      }
      if (encrypted !== undefined) {
        // reasoning another agent recorded from the Responses API (Codex, OpenCode): pi's form of it
        const summary = Array.isArray(meta.summaryParts) ? meta.summaryParts.map(String) : p.thinking ? [p.thinking] : [];
        const content = Array.isArray(meta.reasoningContent) ? meta.reasoningContent.map(String) : undefined;
        return JSON.stringify({
          type: 'reasoning',
          ...(itemId !== undefined ? { id: itemId } : {}),
          summary: summary.map((text) => ({ type: 'summary_text', text })),
          ...(content ? { content: content.map((text) => ({ type: 'reasoning_text', text })) } : {}),
          encrypted_content: encrypted,
        });
      }
      return kept;
    }
    default:
      return kept;
  }
}
