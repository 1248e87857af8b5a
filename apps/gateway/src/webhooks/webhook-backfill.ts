import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { namespacedStreamName, namespacedSubject } from '@headspace/contracts';
import { APP_CONFIG, NATS_CONNECTION } from '@headspace/platform';
import { decodeEnvelope } from '@headspace/messaging';
import { jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Principal } from '../auth/principal';
import { cursorKeyOf } from '../stream/sse-cursor';
import { deliveriesFor } from './event-matching';
import { WebhookSubscriptionsRepository, type NewDelivery } from './webhook-subscriptions.repository';
import { WebhookSubscriptionsService } from './webhook-subscriptions.service';
import type { WebhooksConfig } from './webhooks.config';

const BATCH = 256;

/** `since`: a log position (the CloudEvent's `hsposition`, decimal) or an ISO-8601 time. */
export type BackfillSince = { position: bigint } | { time: string };

/**
 * Replays the events a subscription matches from the event streams (within their JetStream
 * retention) as deliveries of their own origin, so events delivered before are sent again. They
 * join the subscription's queues in stream order, ahead of newer live events.
 */
@Injectable()
export class WebhookBackfill {
  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(APP_CONFIG) private readonly config: WebhooksConfig,
    private readonly repo: WebhookSubscriptionsRepository,
    private readonly subscriptions: WebhookSubscriptionsService,
  ) {}

  async backfill(id: string, since: BackfillSince, principal: Principal): Promise<{ backfillId: string; scheduled: number; truncated: boolean }> {
    const row = await this.subscriptions.visibleRow(id, principal);
    const filter = [{ id: row.id, eventTypes: row.eventTypes, teams: row.teams, projects: row.projects }];
    const backfillId = `bf_${randomBytes(8).toString('hex')}`;
    const origin = `backfill:${backfillId}`;
    const max = this.config.HS_WEBHOOK_BACKFILL_MAX;
    const jsm = await jetstreamManager(this.nc);
    const prefix = namespacedStreamName('HS_EVT_');
    let scheduled = 0;
    let truncated = false;
    for await (const name of jsm.streams.names(namespacedSubject('hs.evt.>'))) {
      if (!name.startsWith(prefix) || truncated) continue;
      const last = (await jsm.streams.info(name)).state.last_seq;
      if (last === 0) continue;
      const consumer = await jetstream(this.nc).consumers.get(name, 'time' in since ? { opt_start_time: since.time } : {});
      try {
        if ((await consumer.info(true)).num_pending === 0) continue;
        let batch: NewDelivery[] = [];
        const flush = async () => {
          if (batch.length) scheduled += await this.repo.schedule(batch, this.repo.pool);
          batch = [];
        };
        const messages = await consumer.consume({ max_messages: BATCH });
        for await (const msg of messages) {
          if (!('position' in since) || positionOf(msg) >= since.position) batch.push(...deliveriesFor(msg, cursorKeyOf(name, prefix), filter, origin));
          if (batch.length >= BATCH) await flush();
          if (scheduled + batch.length >= max) truncated = true;
          if (truncated || msg.seq >= last || msg.info.pending === 0) break;
        }
        messages.stop();
        batch = batch.slice(0, Math.max(0, max - scheduled));
        await flush();
      } finally {
        await consumer.delete().catch(() => undefined);
      }
    }
    await this.repo.log(id, 'backfill-requested', principal.name, this.repo.pool, undefined, { backfillId, since: 'time' in since ? since.time : since.position.toString(), scheduled, truncated });
    return { backfillId, scheduled, truncated };
  }
}

function positionOf(msg: JsMsg): bigint {
  try {
    return decodeEnvelope(msg.data).globalPosition;
  } catch {
    return -1n;
  }
}
