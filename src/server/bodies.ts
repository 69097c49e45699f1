/**
 * The request bodies the routes accept, in one place so the OpenAPI document describes them from
 * the very schemas the routes check (z.toJSONSchema), not from a summary that can drift.
 */
import { z } from 'zod';
import { EntrySchema } from './entry-schema.js';

export const CreateSessionBody = z
  .object({
    space_id: z.string().nullish(),
    disable_task_tracking: z.boolean().nullish(),
    configs: z.record(z.string(), z.unknown()).nullish(),
  })
  .strict();

/** Acontext's PUT /session/{id}/configs: the session's configs, replaced whole. */
export const UpdateConfigsBody = z.object({ configs: z.record(z.string(), z.unknown()) });
/** Acontext's POST /session/{id}/connect_to_space. */
export const ConnectToSpaceBody = z.object({ space_id: z.string().min(1) });

export const StoreMessageBody = z.object({
  blob: z.unknown(),
  format: z.enum(['anthropic', 'openai']).default('openai'),
  meta: z.record(z.string(), z.unknown()).nullish(),
});

export const PutSessionBody = z.object({
  session: z.looseObject({
    id: z.string().min(1),
    source: z.string().optional(),
    project: z.string().optional(),
    title: z.string().optional(),
    createdAt: z.string().optional(),
    updatedAt: z.string().optional(),
    parentId: z.string().nullish(),
    parentEntryId: z.string().optional(),
    leafId: z.string().nullish(),
    meta: z.record(z.string(), z.unknown()).optional(),
  }),
  entries: z.array(EntrySchema).max(100_000),
});

export const AppendBody = z.object({ entries: z.array(EntrySchema).min(1).max(100_000) });
export const ForkBody = z.object({ at: z.string().optional(), title: z.string().optional() });
export const BranchBody = z.object({
  at: z.string().min(1),
  blob: z.unknown(),
  format: z.enum(['anthropic', 'openai']).default('anthropic'),
});
