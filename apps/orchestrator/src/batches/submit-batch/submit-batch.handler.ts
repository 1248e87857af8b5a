import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, routeModel, submitBatch, type BatchItem, type RoutingDecision } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { request, type RequestContext } from '@headspace/messaging';
import { Inject } from '@nestjs/common';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { askSignals } from '../../asks/ask-signals';
import { runIdFor } from '../../runs/start-run/start-run.handler';
import { LlmBackendProvider } from '../../sessions/ports/llm-backend.provider';
import { recordBatch } from '../batch-recorder';

type SubmitBatch = z.output<typeof submitBatch.request>;

const DEFAULT_PERSONA = 'batch';
const DEFAULT_MAX_TOKENS = 1_024;

/**
 * `hs.cmd.orchestrator.submit-batch`: has the cost governor route every item as non-interactive
 * work (the Batch API, 50%) on its prompt's signals unless the item or the batch pins the model or
 * effort — an unknown model is a 400 naming `requests.<i>.model` (or `model`) before anything is
 * written — and records `batch.submitted`. The batch process (woken by it) creates the batch at the
 * API, polls it and settles the results.
 */
@Controller()
export class SubmitBatchHandler {
  constructor(
    private readonly store: EventStore,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly llm: LlmBackendProvider,
  ) {}

  @MessagePattern(submitBatch)
  async handle(@Payload() input: SubmitBatch, @Ctx() ctx: Pick<RequestContext, 'commandId'>) {
    const items = await this.route(input);
    const batchId = input.batchId ?? runIdFor('batch', ctx.commandId ?? randomUUID());
    const { state, streamVersion } = await recordBatch(this.store, input.team, {
      type: 'submit-batch',
      batchId,
      team: input.team,
      items,
      simulated: this.llm.simulated,
      now: new Date().toISOString(),
    });
    // A retried submit answers with the items first recorded.
    const recorded = state.submitted?.items ?? items;
    return { batchId, streamVersion: streamVersion.toString(), items: recorded.map(({ customId, model, tier, effort, reasons }) => ({ customId, model, tier, effort, reasons })) };
  }

  /** One governor decision per distinct (signals, model, effort); the items keep their own reasons. */
  private async route(input: SubmitBatch): Promise<BatchItem[]> {
    const decisions = new Map<string, Promise<RoutingDecision>>();
    const items = input.requests.map((item, i) => {
      const model = item.model ?? input.model;
      const { signals, reasons } = askSignals(item.prompt);
      const query = { signals, interactive: false, ...(model ? { model } : {}), ...(input.effort ? { effort: input.effort } : {}) };
      const key = JSON.stringify(query);
      if (!decisions.has(key)) decisions.set(key, request(this.nc, routeModel, query));
      const field = item.model ? `requests.${i}.model` : 'model';
      return { item, i, reasons, model, decision: decisions.get(key)!.catch((error: unknown) => this.named(error, field)) };
    });
    return Promise.all(
      items.map(async ({ item, i, reasons, model, decision }) => {
        const d = await decision;
        return {
          customId: item.customId ?? `item-${i + 1}`,
          prompt: item.prompt,
          persona: item.persona ?? DEFAULT_PERSONA,
          model: d.model,
          tier: d.tier,
          effort: d.effort,
          maxTokens: item.maxTokens ?? DEFAULT_MAX_TOKENS,
          reasons: [...reasons, ...d.reasons].slice(0, 30),
          pinned: Boolean(model || input.effort),
        };
      }),
    );
  }

  /** The governor's unknown-model refusal, naming the field of this request that held the model. */
  private named(error: unknown, field: string): never {
    if (error instanceof HeadspaceError && error.code === ErrorCodes.costUnknownModel) {
      throw new HeadspaceError(error.code, error.message, { field, ...(error.details ? { details: error.details } : {}) });
    }
    throw error;
  }
}
