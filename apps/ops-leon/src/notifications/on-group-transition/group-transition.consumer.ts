import { createHash } from 'node:crypto';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import {
  exceptionGroupStreamId,
  groupEvents,
  groupOpened,
  groupTransitionEvents,
  notificationDeliveryStreamId,
  notificationSettingsStreamId,
  type NotificationPayload,
  type NotificationSeverity,
} from '@headspace/contracts';
import { EventStore, quoteIdent } from '@headspace/event-store';
import type { ConsumedEvent, EventContext } from '@headspace/messaging';
import { APP_CONFIG, SERVICE_SCHEMA } from '@headspace/platform';
import type { PoolClient } from 'pg';
import { notificationDeliveryDecider } from '../notification-delivery.decider';
import { notificationSettingsDecider, planNotifications, type NotificationSettingsEvent } from '../notification-settings.decider';
import type { NotificationsConfig } from '../notifications.config';

/** The fields every lifecycle event of a group carries (group.opened has no from/to: it opens at NEW). */
interface LifecycleData {
  groupId: string;
  project: string;
  from?: string;
  to?: string;
  reason?: string;
  title?: string;
  severity?: NotificationSeverity;
  at: string;
}

/**
 * Every lifecycle event of a group (opened and each transition), through a durable JetStream
 * consumer: the deliveries the project's settings ask for are scheduled — one
 * `notification-delivery.scheduled` stream and one due row each — in the consumer's inbox
 * transaction, so a redelivered event schedules nothing twice. No network here: a slow receiver
 * must not hold this transaction (and with it the cluster-wide xid8 fence) open; the delivery
 * sweeper sends.
 */
/** Lifecycle events notify; the other `group.*` events (spikes) only pass through the consumer's one wildcard filter. */
const NOTIFYING = new Set<string>([groupOpened, ...groupTransitionEvents].map((d) => d.type));
const GROUP_EVENTS = groupEvents.filter((d) => d.category === 'group');

@Controller()
export class GroupTransitionConsumer {
  static readonly durable = 'ops-leon-notifications';
  private readonly q: string;

  constructor(
    private readonly store: EventStore,
    @Inject(SERVICE_SCHEMA) schema: string,
    @Inject(APP_CONFIG) private readonly config: NotificationsConfig,
  ) {
    this.q = quoteIdent(schema);
  }

  @EventPattern(GROUP_EVENTS, {
    durable: GroupTransitionConsumer.durable,
    // One filter for every group event, in log order (nats-server < 2.10 takes one filter per consumer).
    filterSubject: 'hs.evt.ops-leon.group.>',
    backoffMs: [250, 1_000, 5_000, 15_000],
  })
  async apply(@Payload() event: ConsumedEvent<LifecycleData>, @Ctx() { tx }: EventContext): Promise<void> {
    if (!NOTIFYING.has(event.type)) return;
    const payload = await this.payloadOf(event, tx);
    const { state: settings } = await this.store.aggregate(
      notificationSettingsStreamId(payload.project),
      (s, e) => notificationSettingsDecider.evolve(s, e as unknown as NotificationSettingsEvent),
      notificationSettingsDecider.initialState(),
      { client: tx },
    );
    const now = new Date().toISOString();
    for (const { channel, target } of planNotifications(settings, payload)) {
      const deliveryId = `dlv_${createHash('sha256').update(`${event.eventId}\u0000${target}`).digest('hex').slice(0, 24)}`;
      const events = notificationDeliveryDecider.decide(
        { type: 'schedule', deliveryId, project: payload.project, channel, target, payload, maxAttempts: this.config.HS_OPS_NOTIFY_MAX_ATTEMPTS, now },
        notificationDeliveryDecider.initialState(),
      );
      await this.store.append(notificationDeliveryStreamId(deliveryId), events, {
        expected: 'no-stream',
        commandId: `notify:${event.eventId}:${target}`,
        client: tx,
        metadata: { causationId: event.eventId, ...(event.metadata.correlationId ? { correlationId: event.metadata.correlationId } : {}) },
      });
      await tx.query(
        `INSERT INTO ${this.q}.notification_deliveries (delivery_id, project, channel, target, group_id, to_state, next_attempt_at, scheduled_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7) ON CONFLICT (delivery_id) DO NOTHING`,
        [deliveryId, payload.project, channel, target, payload.groupId, payload.to, now],
      );
    }
  }

  /** The transition as a notification: its title and severity from the group's stream as it stood at this event. */
  private async payloadOf(event: ConsumedEvent<LifecycleData>, tx: PoolClient): Promise<NotificationPayload> {
    const d = event.data;
    const history = await this.store.readStream(exceptionGroupStreamId(d.groupId), { client: tx });
    const upTo = event.streamId === exceptionGroupStreamId(d.groupId) ? history.filter((e) => e.streamVersion <= event.streamVersion) : history;
    let title: string | undefined;
    let severity: NotificationSeverity | null = null;
    for (const e of upTo) {
      const data = e.data as LifecycleData;
      if (e.type === groupOpened.type) title = data.title;
      if (data.severity) severity = data.severity;
    }
    const opened = event.type === groupOpened.type;
    return {
      project: d.project,
      groupId: d.groupId,
      eventType: event.type,
      eventId: event.eventId,
      from: opened ? null : (d.from ?? null),
      to: opened ? 'NEW' : (d.to ?? 'NEW'),
      severity: d.severity ?? severity,
      ...(title ?? d.title ? { title: (title ?? d.title)!.slice(0, 1_000) } : {}),
      ...(d.reason ? { reason: d.reason.slice(0, 2_000) } : {}),
      occurredAt: new Date(d.at).toISOString(),
    };
  }
}
