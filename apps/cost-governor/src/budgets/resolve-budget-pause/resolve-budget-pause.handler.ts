import { randomUUID } from 'node:crypto';
import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, resolveBudgetPause } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { metadataOf } from '../../shared/event-metadata';
import { BudgetCommands } from '../budget-commands.service';
import { toBudgetView } from '../budget-view';

/** `resolve-budget-pause`: approve (raise the limit, resume) or deny (stop) a paused budget, without the team-manager. */
@Controller()
export class ResolveBudgetPauseHandler {
  constructor(
    private readonly commands: BudgetCommands,
  ) {}

  @MessagePattern(resolveBudgetPause)
  async handle(@Payload() request: z.output<typeof resolveBudgetPause.request>, @Ctx() ctx: RequestContext) {
    const commandId = ctx.commandId ?? randomUUID();
    const outcome = await this.commands.run(
      request.budgetId,
      {
        type: 'resolve-pause',
        decision: request.decision,
        addMicros: request.addUsd === undefined ? undefined : BigInt(request.addUsd),
        resolvedBy: request.resolvedBy,
        reason: request.reason,
        now: new Date().toISOString(),
      },
      commandId,
      metadataOf(ctx, commandId),
    );
    const { state, streamVersion } = outcome.replayed ? await this.commands.asLeftBy(request.budgetId, commandId) : outcome;
    if (state.status === 'none') throw new HeadspaceError(ErrorCodes.budgetNotFound, `No budget "${request.budgetId}"`, { field: 'budgetId' });
    return { budget: toBudgetView(state), streamVersion: streamVersion.toString() };
  }
}
