import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { modelTierSchema } from '../cost-governor/price.contracts';
import { effortLevelSchema } from '../cost-governor/routing.contracts';
import { teamNameSchema } from '../team-manager/team.contracts';
import { sessionUsageSchema } from './session.contracts';

/**
 * A batch: deferrable prompts submitted together through the Message Batches API (issue 25 scope 8,
 * seed 003 Req 4/11) and settled at batch prices when the results arrive. Its stream
 * `batch-<batchId>` records the request with each item's routing, the provider's batch id (right
 * after create, so a restarted orchestrator polls it instead of creating another), every item's
 * result with its usage and cost, and the end; the orchestrator resumes a batch from it after a crash.
 */
export const batchStreamId = (batchId: string) => `batch-${batchId}`;

export const batchIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be 1-63 lowercase letters, digits or dashes');
/** The API's own rule for `custom_id`. */
export const batchCustomIdSchema = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, underscores or dashes');
/** Items of one batch: a product limit (the API takes 100,000), keeping the `batch.submitted` event under ~1 MB. */
export const MAX_BATCH_ITEMS = 100;
export const batchStatuses = ['submitting', 'in_progress', 'ended', 'failed'] as const;
export const batchItemStatuses = ['pending', 'succeeded', 'errored', 'canceled', 'expired'] as const;
export const batchResultTypes = ['succeeded', 'errored', 'canceled', 'expired'] as const;

const id = z.string().min(1).max(200);
const at = z.iso.datetime();
const usd = z.string().max(40);
const persona = z.string().regex(/^[a-z][a-z0-9-]{0,63}$/, 'must be a lower-case persona id');

/** One deferrable request as the operator sends it. */
export const batchRequestItemSchema = z.object({
  /** Matches the item to its result; default `item-<n>` (1-based). Unique within the batch. */
  customId: batchCustomIdSchema.optional(),
  prompt: z.string().trim().min(1).max(10_000),
  /** Whose voice answers (a `Persona:` line of the system prompt); default `batch`. */
  persona: persona.optional(),
  /** Pins this item's model (id or alias); otherwise the batch's `model`, else the governor routes the prompt. */
  model: z.string().min(1).max(100).optional(),
  maxTokens: z.number().int().min(1).max(8_192).optional(),
});

/** An item as recorded: its custom id, prompt and the governor's decision for it. */
export const batchItemSchema = z.object({
  customId: batchCustomIdSchema,
  prompt: z.string().min(1).max(10_000),
  persona: id,
  model: z.string().min(1).max(100),
  tier: modelTierSchema,
  effort: effortLevelSchema,
  maxTokens: z.number().int().min(1).max(8_192),
  reasons: z.array(z.string().max(500)).max(30),
  pinned: z.boolean(),
});
export type BatchItem = z.output<typeof batchItemSchema>;

const ev = <N extends string, S extends z.ZodType>(name: N, schema: S) => defineEvent({ service: 'orchestrator', category: 'batch', name, schema });

export const batchSubmitted = ev(
  'submitted',
  z.object({
    batchId: id,
    team: teamNameSchema,
    items: z.array(batchItemSchema).min(1).max(MAX_BATCH_ITEMS),
    /** True when the model backend is the Headspace simulator. */
    simulated: z.boolean(),
    submittedAt: at,
  }),
);

/** About to call create: a restart that finds this without `batch.created` looks for the batch at the API before creating one. */
export const batchCreateAttempted = ev('create-attempted', z.object({ batchId: id, attempt: z.number().int().min(1), at }));

export const batchCreated = ev(
  'created',
  z.object({
    batchId: id,
    /** The Message Batches API's id (`msgbatch_…`). */
    providerBatchId: z.string().min(1).max(200),
    /** True when a restart found the batch an interrupted create had made, instead of creating it. */
    adopted: z.boolean(),
    expiresAt: at,
    at,
  }),
);

export const batchItemSettled = ev(
  'item-settled',
  z.object({
    batchId: id,
    customId: batchCustomIdSchema,
    result: z.enum(batchResultTypes),
    /** The answer's text (succeeded). */
    text: z.string().max(20_000).optional(),
    /** The API's error (errored). */
    error: z.string().max(2_000).optional(),
    /** The model that answered. */
    model: z.string().max(100).optional(),
    usage: sessionUsageSchema.optional(),
    /** The cost governor's usage record and what it charged (batch tier). */
    usageId: z.string().max(200).optional(),
    costUsd: usd.optional(),
    simulated: z.boolean(),
    at,
  }),
);

export const batchEnded = ev(
  'ended',
  z.object({
    batchId: id,
    counts: z.object({ succeeded: z.number().int(), errored: z.number().int(), canceled: z.number().int(), expired: z.number().int() }),
    /** What the governor charged (batch prices), summed. */
    costUsd: usd,
    /** The same usage at standard prices (for the saving shown). */
    standardCostUsd: usd.optional(),
    at,
  }),
);

export const batchFailed = ev('failed', z.object({ batchId: id, reason: z.string().min(1).max(5_000), at }));

export const batchEvents = [batchSubmitted, batchCreateAttempted, batchCreated, batchItemSettled, batchEnded, batchFailed];

// ---- requests -----------------------------------------------------------------------------------

export const submitBatch = defineCommand({
  service: 'orchestrator',
  name: 'submit-batch',
  request: z
    .object({
      batchId: batchIdSchema.optional(),
      team: teamNameSchema,
      requests: z.array(batchRequestItemSchema).min(1).max(MAX_BATCH_ITEMS),
      /** Every item's model unless the item names its own. */
      model: z.string().min(1).max(100).optional(),
      /** Pins the effort of every item instead of routing. */
      effort: effortLevelSchema.optional(),
    })
    .superRefine((req, ctx) => {
      const seen = new Set<string>();
      req.requests.forEach((item, i) => {
        const customId = item.customId ?? `item-${i + 1}`;
        if (seen.has(customId)) ctx.addIssue({ code: 'custom', path: ['requests', i, 'customId'], message: `duplicate customId "${customId}"` });
        seen.add(customId);
      });
    }),
  response: z.object({ batchId: z.string(), streamVersion: z.string(), items: z.array(batchItemSchema.pick({ customId: true, model: true, tier: true, effort: true, reasons: true })) }),
});

export const batchItemViewSchema = z.object({
  customId: z.string(),
  persona: z.string(),
  model: z.string(),
  tier: modelTierSchema,
  status: z.enum(batchItemStatuses),
  text: z.string().nullable(),
  error: z.string().nullable(),
  usage: sessionUsageSchema.nullable(),
  costUsd: z.string().nullable(),
});

export const batchViewSchema = z.object({
  batchId: z.string(),
  team: z.string(),
  status: z.enum(batchStatuses),
  providerBatchId: z.string().nullable(),
  simulated: z.boolean(),
  items: z.array(batchItemViewSchema),
  counts: z.object({ pending: z.number().int(), succeeded: z.number().int(), errored: z.number().int(), canceled: z.number().int(), expired: z.number().int() }),
  costUsd: z.string().nullable(),
  standardCostUsd: z.string().nullable(),
  failure: z.string().nullable(),
  submittedAt: z.string(),
  endedAt: z.string().nullable(),
});
export type BatchView = z.output<typeof batchViewSchema>;

export const getBatch = defineQuery({ service: 'orchestrator', name: 'get-batch', request: z.object({ batchId: id }), response: batchViewSchema });

export const batchSummarySchema = batchViewSchema.pick({ batchId: true, team: true, status: true, simulated: true, costUsd: true, submittedAt: true, endedAt: true }).extend({ items: z.number().int() });

export const listBatches = defineQuery({
  service: 'orchestrator',
  name: 'list-batches',
  request: z.object({ team: teamNameSchema, limit: z.number().int().min(1).max(200).default(50) }),
  response: z.object({ batches: z.array(batchSummarySchema) }),
});
