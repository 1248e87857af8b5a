import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { budgetIdOf, setBudget } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { metadataOf } from '../../shared/event-metadata';
import { ServedHandler } from '@headspace/platform';
import { BudgetCommands } from '../budget-commands.service';

/** `set-budget`: creates or changes a budget (USD limit, per-turn token caps, period). */
@Injectable()
export class SetBudgetHandler extends ServedHandler<typeof setBudget> {
  constructor(
    private readonly commands: BudgetCommands,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(setBudget, nc);
  }

  async handle(request: z.output<typeof setBudget.request>, ctx: RequestContext) {
    const commandId = ctx.commandId ?? randomUUID();
    const budgetId = budgetIdOf(request.scope);
    const outcome = await this.commands.run(
      budgetId,
      {
        type: 'set-budget',
        budgetId,
        scope: request.scope,
        limitMicros: request.limitUsd === undefined ? undefined : BigInt(request.limitUsd),
        turnInputTokens: request.turnInputTokens,
        turnOutputTokens: request.turnOutputTokens,
        period: request.period,
        setBy: request.setBy,
        now: new Date().toISOString(),
      },
      commandId,
      metadataOf(ctx, commandId),
    );
    const { streamVersion } = outcome.replayed ? await this.commands.asLeftBy(budgetId, commandId) : outcome;
    return { budgetId, streamVersion: streamVersion.toString() };
  }
}
