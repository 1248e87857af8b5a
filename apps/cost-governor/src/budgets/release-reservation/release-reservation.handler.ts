import { randomUUID } from 'node:crypto';
import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, releaseReservation } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { metadataOf } from '../../shared/event-metadata';
import { applicableBudgetIds } from '../applicable-budgets';
import { BudgetGroupCommit } from '../budget-group-commit';

/** `release-reservation`: the call did not happen (or failed before billing): give its holds back now, not at expiry. */
@Controller()
export class ReleaseReservationHandler {
  constructor(
    private readonly groupCommit: BudgetGroupCommit,
  ) {}

  @MessagePattern(releaseReservation)
  async handle(@Payload() request: z.output<typeof releaseReservation.request>, @Ctx() ctx: RequestContext) {
    const commandId = ctx.commandId ?? randomUUID();
    const budgetIds = applicableBudgetIds(request.attribution);
    const metadata = metadataOf(ctx, commandId);
    // No probes: a retry finds the hold gone and is told so.
    const released = await this.groupCommit.submit({
      budgetIds,
      work: (tick) => {
        const out: Array<{ budgetId: string; releasedMicros: string }> = [];
        for (const [budgetId, state] of tick.budgets(budgetIds)) {
          const held = state.reservations[request.reservationId];
          if (!held) continue;
          tick.apply(budgetId, { type: 'release-reservation', reservationId: request.reservationId, reason: request.reason, now: new Date().toISOString() }, commandId, metadata);
          out.push({ budgetId, releasedMicros: held.amount.toString() });
        }
        return out;
      },
    });
    if (released.length === 0) {
      throw new HeadspaceError(ErrorCodes.reservationNotFound, `No budget of this attribution holds reservation "${request.reservationId}" (settled, expired or never made)`, {
        field: 'reservationId',
      });
    }
    return { reservationId: request.reservationId, released };
  }
}
