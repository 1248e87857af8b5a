import { Inject, Injectable } from '@nestjs/common';
import type Anthropic from '@anthropic-ai/sdk';
import {
  batchEvents,
  costOf,
  ErrorCodes,
  getPrices,
  HeadspaceError,
  microsToUsd,
  recordUsage,
  usdAmountSchema,
  type BatchItem,
  type PriceTable,
  type SessionUsage,
} from '@headspace/contracts';
import { ConcurrencyError, EventStore } from '@headspace/event-store';
import { normaliseUsage, priceRowFor, toMessageParams } from '@headspace/llm';
import { request } from '@headspace/messaging';
import { APP_CONFIG, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { AppConfig } from '../config';
import { PassProcessor } from '../runs/pass-processor';
import { LlmBackendProvider } from '../sessions/ports/llm-backend.provider';
import { pendingItems, type BatchState } from './batch.decider';
import { loadBatch, recordBatch } from './batch-recorder';

/** The simulator's scenario key, and the `Situation:` line a real model reads. */
export const BATCH_SITUATION = 'batch';
/** How far before its recorded attempt a batch found at the API may have been created (clock skew). */
const ADOPT_SKEW_MS = 60_000;
/** The simulator's batch ids (its answers' ids start `msg_sim_`): what a person sees of them is labelled simulated. */
export const SIMULATED_BATCH_PREFIX = 'msgbatch_sim_';

const now = () => new Date().toISOString();

/** The Messages API body of one item (no tools, no streaming: a batch answers in one turn). */
export function batchItemParams(item: BatchItem): Anthropic.MessageCreateParamsNonStreaming {
  return toMessageParams({
    model: item.model,
    maxTokens: item.maxTokens,
    effort: item.effort,
    system: `Persona: ${item.persona}\nSituation: ${BATCH_SITUATION}\n\nAnswer the request below on your own, in one reply: no tools are available and nobody will answer follow-up questions.`,
    messages: [{ role: 'user', content: item.prompt }],
  });
}

const tokensOf = (usage: Anthropic.Usage): SessionUsage => {
  const u = normaliseUsage(usage);
  return { inputTokens: u.inputTokens, outputTokens: u.outputTokens, cacheWrite5mTokens: u.cacheCreation5mTokens, cacheWrite1hTokens: u.cacheCreation1hTokens, cacheReadTokens: u.cacheReadTokens };
};

/** An API error the request itself caused (4xx other than 408/409/429): retrying cannot help. */
const refused = (error: unknown): error is { status: number; message: string } => {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500 && ![408, 409, 429].includes(status);
};

/**
 * Drives batches. `batch.submitted` and `batch.created` wake a pass; the sweep (every
 * HS_BATCH_POLL_MS on the lease holder) wakes every batch still submitting or in progress, which is
 * the poll. A pass does what the stream says comes next:
 *
 * - submitting: record `batch.create-attempted` (numbered), call `messages.batches.create` with the
 *   items' deterministic custom ids, record `batch.created` with the provider's id at once. A pass
 *   that finds an attempt without `created` (the orchestrator died inside create) first looks at the
 *   API's batch list for the one that create made — created since the attempt, with as many requests,
 *   claimed by no other batch — and adopts it instead of creating a second.
 * - in progress: retrieve; once `ended`, read the JSONL results and for each item not yet settled
 *   record its usage with the cost governor (service tier `batch`, command id per item, so a repeat
 *   charges nothing twice), then `batch.item-settled` with the cost charged; then `batch.ended`.
 */
@Injectable()
export class BatchProcess extends PassProcessor {
  constructor(
    store: EventStore,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly llm: LlmBackendProvider,
  ) {
    super(store, { name: 'batch-process', types: batchEvents.map((e) => e.type) });
  }

  protected async handle(events: Array<{ type: string; data: unknown }>): Promise<void> {
    for (const event of events) {
      if (event.type !== 'batch.submitted' && event.type !== 'batch.created') continue;
      const { batchId } = event.data as { batchId?: string };
      if (batchId) this.trigger(batchId);
    }
  }

  protected readonly aggregate = 'batch';
  protected get sweepMs(): number {
    return this.config.HS_BATCH_POLL_MS;
  }

  protected async activeIds(): Promise<string[]> {
    const { rows } = await this.store.pool.query<{ batch_id: string }>(`SELECT batch_id FROM ${this.q}.batches WHERE status IN ('submitting', 'in_progress') ORDER BY submitted_at`);
    return rows.map((r) => r.batch_id);
  }

  async reconcile(batchId: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        return await this.pass(batchId);
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error;
      }
    }
  }

  private async sdk(): Promise<Anthropic> {
    return (await this.llm.get()).client.sdk();
  }

  private async pass(batchId: string): Promise<void> {
    const state = await loadBatch(this.store, batchId);
    if (this.stopping || !state.submitted) return;
    if (state.status === 'submitting') return this.create(state);
    if (state.status === 'in_progress') return this.poll(state);
  }

  private async create(state: BatchState): Promise<void> {
    const s = state.submitted!;
    const sdk = await this.sdk();
    if (state.attempts > 0) {
      const found = await this.interrupted(sdk, state);
      if (found) {
        await recordBatch(this.store, s.team, { type: 'record-created', batchId: s.batchId, providerBatchId: found.id, adopted: true, expiresAt: found.expires_at, now: now() });
        return;
      }
    }
    const attempt = state.attempts + 1;
    const recorded = await recordBatch(this.store, s.team, { type: 'attempt-create', batchId: s.batchId, attempt, now: now() });
    if (recorded.state.attempts !== attempt || recorded.state.status !== 'submitting') return; // another pass got there
    let created: Anthropic.Messages.Batches.MessageBatch;
    try {
      created = await sdk.messages.batches.create({ requests: s.items.map((item) => ({ custom_id: item.customId, params: batchItemParams(item) })) });
    } catch (error) {
      if (!refused(error)) throw error; // a later pass (the sweep) tries again, after looking for what this call made
      await recordBatch(this.store, s.team, { type: 'fail-batch', batchId: s.batchId, reason: `The Message Batches API refused the batch: ${error.message}`.slice(0, 5_000), now: now() });
      return;
    }
    // Right after create: from here a restart polls this batch and never creates another.
    await recordBatch(this.store, s.team, { type: 'record-created', batchId: s.batchId, providerBatchId: created.id, adopted: false, expiresAt: created.expires_at, now: now() });
  }

  /** The batch an interrupted create made, if the API has one that fits and no other batch claims it. */
  private async interrupted(sdk: Anthropic, state: BatchState): Promise<Anthropic.Messages.Batches.MessageBatch | undefined> {
    const since = Date.parse(state.submitted!.submittedAt) - ADOPT_SKEW_MS;
    const total = (b: Anthropic.Messages.Batches.MessageBatch) => Object.values(b.request_counts).reduce((sum, n) => sum + n, 0);
    const candidates: Anthropic.Messages.Batches.MessageBatch[] = [];
    for await (const b of sdk.messages.batches.list({ limit: 100 })) {
      if (Date.parse(b.created_at) < since) break; // newest first
      if (total(b) === state.submitted!.items.length) candidates.push(b);
    }
    if (candidates.length === 0) return undefined;
    const { rows } = await this.store.pool.query<{ provider_batch_id: string }>(`SELECT provider_batch_id FROM ${this.q}.batches WHERE provider_batch_id = ANY($1::text[])`, [candidates.map((c) => c.id)]);
    const claimed = new Set(rows.map((r) => r.provider_batch_id));
    return candidates.filter((c) => !claimed.has(c.id)).sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at))[0];
  }

  private async poll(state: BatchState): Promise<void> {
    const s = state.submitted!;
    const providerId = state.created!.providerBatchId;
    const sdk = await this.sdk();
    let batch: Anthropic.Messages.Batches.MessageBatch;
    try {
      batch = await sdk.messages.batches.retrieve(providerId);
    } catch (error) {
      if ((error as { status?: number }).status !== 404) throw error;
      await recordBatch(this.store, s.team, { type: 'fail-batch', batchId: s.batchId, reason: `The Message Batches API no longer has batch ${providerId} (an in-process simulator forgets its batches when the orchestrator restarts)`, now: now() });
      return;
    }
    if (batch.processing_status !== 'ended') return;
    const pending = new Set(pendingItems(state));
    const items = new Map(s.items.map((i) => [i.customId, i]));
    let current = state;
    if (pending.size > 0) {
      for await (const line of await sdk.messages.batches.results(providerId)) {
        const item = items.get(line.custom_id);
        if (!item || !pending.has(line.custom_id) || this.stopping) continue;
        current = (await this.settle(s.batchId, s.team, item, line.result, providerId.startsWith(SIMULATED_BATCH_PREFIX))).state;
      }
    }
    if (this.stopping || pendingItems(current).length > 0) return;
    const table = await request(this.nc, getPrices, {}).then((r) => r.table).catch(() => undefined);
    await recordBatch(this.store, s.team, { type: 'end-batch', batchId: s.batchId, ...this.totals(current, table), now: now() });
  }

  /** Records the item's usage with the governor (batch tier) and then its result with what it cost. */
  private async settle(batchId: string, team: string, item: BatchItem, result: Anthropic.Messages.Batches.MessageBatchResult, simulatedBatch: boolean) {
    const base = { type: 'settle-item' as const, batchId, customId: item.customId, now: now() };
    if (result.type !== 'succeeded') {
      const error = result.type === 'errored' ? `${result.error.error.type}: ${result.error.error.message}`.slice(0, 2_000) : undefined;
      return recordBatch(this.store, team, { ...base, result: result.type, ...(error ? { error } : {}), simulated: simulatedBatch });
    }
    const message = result.message;
    const usage = tokensOf(message.usage);
    const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n').slice(0, 20_000);
    const simulated = simulatedBatch || message.id.startsWith('msg_sim_');
    let charged: { usageId: string; costUsd: string } | undefined;
    try {
      const reply = await request(
        this.nc,
        recordUsage,
        {
          attribution: { sessionId: `${batchId}.batch`, taskId: item.customId, persona: item.persona, team, project: batchId, surface: 'api' },
          model: message.model,
          serviceTier: 'batch',
          tokens: usage,
        },
        { commandId: `${batchId}:usage:${item.customId}` },
      );
      charged = { usageId: reply.usageId, costUsd: reply.costUsd };
    } catch (error) {
      // A model the price table does not know is settled without a cost rather than held forever.
      if (!(error instanceof HeadspaceError && error.code === ErrorCodes.costUnknownModel)) throw error;
    }
    return recordBatch(this.store, team, { ...base, result: 'succeeded', text, model: message.model, usage, ...(charged ?? {}), simulated });
  }

  /** What the governor charged, summed; and the same usage at standard prices (unknown without the table). */
  private totals(state: BatchState, table: PriceTable | undefined): { costUsd: string; standardCostUsd?: string } {
    let charged = 0n;
    let standard = 0n;
    let priced = table !== undefined;
    for (const item of Object.values(state.settled)) {
      if (item.costUsd) charged += BigInt(usdAmountSchema.parse(item.costUsd));
      if (!item.usage || !item.model || !table) continue;
      const row = priceRowFor(table, item.model, new Date(item.at));
      if (!row) priced = false;
      else standard += costOf(row, table.multipliers, item.usage, false).micros;
    }
    return { costUsd: microsToUsd(charged), ...(priced ? { standardCostUsd: microsToUsd(standard) } : {}) };
  }
}
