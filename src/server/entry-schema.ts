/**
 * The shape an entry must have to be stored through the server (PUT a session, POST entries).
 * Checked per kind down to the parts, because a stored entry that only looks like an entry (a
 * message without `message`, a part without its text) would break every later read of its
 * session. Unknown fields are kept (loose objects): entries carry agent records in `raw`.
 */
import { z } from 'zod';

const meta = z.record(z.string(), z.unknown()).optional();
const media = { mediaType: z.string(), data: z.string().optional(), url: z.string().optional(), meta };

const TextPart = z.looseObject({ type: z.literal('text'), text: z.string(), meta });
const ImagePart = z.looseObject({ type: z.literal('image'), ...media });
const FilePart = z.looseObject({ type: z.literal('file'), ...media, text: z.string().optional(), name: z.string().optional() });

const PartSchema = z.discriminatedUnion('type', [
  TextPart,
  z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional(), meta }),
  z.looseObject({ type: z.literal('redacted_thinking'), data: z.string(), meta }),
  ImagePart,
  FilePart,
  z.looseObject({
    type: z.literal('tool_call'),
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
    meta,
  }),
  z.looseObject({
    type: z.literal('tool_result'),
    callId: z.string(),
    name: z.string().optional(),
    content: z.union([z.string(), z.array(z.discriminatedUnion('type', [TextPart, ImagePart, FilePart]))]),
    isError: z.boolean().optional(),
    meta,
  }),
]);

const count = z.number().finite().nonnegative().optional();
const UsageSchema = z.looseObject({
  input: count,
  output: count,
  cacheRead: count,
  cacheWrite: count,
  cacheWrite1h: count,
  reasoning: count,
  webSearches: count,
  speed: z.literal('fast').optional(),
  inferenceGeo: z.string().optional(),
  advisors: z
    .array(
      z.looseObject({ model: z.string(), input: count, output: count, cacheRead: count, cacheWrite: count, cacheWrite1h: count }),
    )
    .optional(),
});

const MessageSchema = z.looseObject({
  role: z.enum(['user', 'assistant', 'system', 'tool']),
  parts: z.array(PartSchema),
  model: z.string().optional(),
  provider: z.string().optional(),
  api: z.string().optional(),
  usage: UsageSchema.optional(),
  cost: z.number().finite().optional(),
  stopReason: z.string().optional(),
  error: z.string().optional(),
  responseId: z.string().optional(),
  meta,
});

const base = {
  id: z.string().min(1),
  parentId: z.string().nullable(),
  timestamp: z.string(),
  rawSource: z.string().optional(),
  sidechain: z.boolean().optional(),
};

export const EntrySchema = z.discriminatedUnion('kind', [
  z.looseObject({ ...base, kind: z.literal('message'), message: MessageSchema }),
  z.looseObject({
    ...base,
    kind: z.literal('compaction'),
    summary: z.string(),
    firstKeptEntryId: z.string().optional(),
    tokensBefore: z.number().finite().optional(),
  }),
  z.looseObject({
    ...base,
    kind: z.literal('branch_summary'),
    summary: z.string(),
    fromId: z.string().optional(),
    text: z.string().optional(),
  }),
  z.looseObject({
    ...base,
    kind: z.literal('model_change'),
    model: z.string().optional(),
    provider: z.string().optional(),
    thinkingLevel: z.string().optional(),
  }),
  z.looseObject({ ...base, kind: z.literal('label'), targetId: z.string(), label: z.string().optional() }),
  z.looseObject({ ...base, kind: z.literal('metadata'), type: z.string() }),
]);
