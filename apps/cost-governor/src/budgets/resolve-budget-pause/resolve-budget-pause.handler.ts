import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, resolveBudgetPause } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { metadataOf } from '../../shared/event-metadata';
import { ServedHandler } from '@headspace/platform';
import { BudgetCommands } from '../budget-commands.service';
import { toBudgetView } from '../budget-view';

/** `resolve-budget-pause`: approve (raise the limit, resume) or deny (stop) a paused budget, without the team-manager. */
@Injectable()
export class ResolveBudgetPauseHandler extends ServedHandler<typeof resolveBudgetPause> {
  constructor(
    private readonly commands: BudgetCommands,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(resolveBudgetPause, nc);
  }

  async handle(request: z.output<typeof resolveBudgetPause.request>, ctx: RequestContext) {
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
