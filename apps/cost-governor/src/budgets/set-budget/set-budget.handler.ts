import { randomUUID } from 'node:crypto';
import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { budgetIdOf, setBudget } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { metadataOf } from '../../shared/event-metadata';
import { BudgetCommands } from '../budget-commands.service';

/** `set-budget`: creates or changes a budget (USD limit, per-turn token caps, period). */
@Controller()
export class SetBudgetHandler {
  constructor(
    private readonly commands: BudgetCommands,
  ) {}

  @MessagePattern(setBudget)
  async handle(@Payload() request: z.output<typeof setBudget.request>, @Ctx() ctx: RequestContext) {
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
