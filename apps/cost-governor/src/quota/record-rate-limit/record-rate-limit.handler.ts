import { randomUUID } from 'node:crypto';
import { Inject, Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { recordRateLimit } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { APP_CONFIG } from '@headspace/platform';
import type { z } from 'zod';
import type { AppConfig } from '../../config';
import { metadataOf } from '../../shared/event-metadata';
import { inTransaction } from '../../shared/transaction';
import { weekStartOf } from '../week';

/**
 * `record-rate-limit`: an agent's SDKRateLimitInfo (utilisation, reset, overage) as
 * `quota.rate-limit-status`; at ≥ HS_QUOTA_ALERT_PERCENT utilisation a `quota.alert` fires once per
 * reset window (its stream is keyed by the window, so a second report finds it taken).
 */
@Controller()
export class RecordRateLimitHandler {
  constructor(
    private readonly store: EventStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @MessagePattern(recordRateLimit)
  async handle(@Payload() request: z.output<typeof recordRateLimit.request>, @Ctx() ctx: RequestContext) {
    const commandId = ctx.commandId ?? randomUUID();
    const now = new Date().toISOString();
    const metadata = metadataOf(ctx, commandId);
    return inTransaction(this.store, async (tx) => {
      const status = await this.store.append(
        `ratelimit-${request.project}`,
        [{ type: 'quota.rate-limit-status', data: { ...request, at: now } }],
        { expected: 'any', commandId, metadata, client: tx },
      );
      let alerted = false;
      if (!status.replayed && request.info.utilization * 100 >= this.config.HS_QUOTA_ALERT_PERCENT) {
        const window = request.info.resetsAt ?? weekStartOf(new Date(now));
        const alertStream = `quotaalert-${request.project}.rate-limit.${request.info.rateLimitType ?? 'default'}.${window}`;
        if ((await this.store.streamVersion(alertStream, tx)) === null) {
          await this.store.append(
            alertStream,
            [{ type: 'quota.alert', data: { project: request.project, source: 'rate-limit', utilisation: request.info.utilization, weekStart: weekStartOf(new Date(now)), at: now } }],
            { expected: 'no-stream', commandId, metadata, client: tx },
          );
          alerted = true;
        }
      }
      return { alerted, streamVersion: status.nextExpectedVersion.toString() };
    });
  }
}
