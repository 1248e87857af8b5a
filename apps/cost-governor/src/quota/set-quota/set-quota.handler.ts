import { randomUUID } from 'node:crypto';
import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { quotaStreamId, setQuota } from '@headspace/contracts';
import { EventStore, withRetry } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { metadataOf } from '../../shared/event-metadata';
import { weeklyLimitOf } from '../quota-limits';

/** `set-quota`: a project's weekly USD quota (seed 003 Req 15.5), alerting at HS_QUOTA_ALERT_PERCENT. */
@Controller()
export class SetQuotaHandler {
  constructor(
    private readonly store: EventStore,
  ) {}

  @MessagePattern(setQuota)
  async handle(@Payload() request: z.output<typeof setQuota.request>, @Ctx() ctx: RequestContext) {
    const commandId = ctx.commandId ?? randomUUID();
    const streamId = quotaStreamId(request.project);
    return withRetry(async () => {
      const prior = await this.store.priorResult(streamId, commandId);
      if (prior) return { streamVersion: prior.nextExpectedVersion.toString() };
      const { version } = await weeklyLimitOf(this.store, request.project);
      const result = await this.store.append(
        streamId,
        [{ type: 'quota.set', data: { project: request.project, weeklyLimitMicros: request.weeklyLimitUsd, setBy: request.setBy, at: new Date().toISOString() } }],
        { expected: version === 0n ? 'no-stream' : version, commandId, metadata: metadataOf(ctx, commandId) },
      );
      return { streamVersion: result.nextExpectedVersion.toString() };
    });
  }
}
