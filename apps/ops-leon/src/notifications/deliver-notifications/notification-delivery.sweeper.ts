import { Inject, Injectable } from '@nestjs/common';
import { notificationDeliveryStreamId, notificationSettingsStreamId, signWebhook, WEBHOOK_SIGNATURE_HEADER } from '@headspace/contracts';
import { ConcurrencyError, EventStore, quoteIdent } from '@headspace/event-store';
import { APP_CONFIG, PG_POOL, SERVICE_SCHEMA, Sweeper } from '@headspace/platform';
import type { Pool } from 'pg';
import {
  notificationDeliveryDecider,
  type NotificationDeliveryCommand,
  type NotificationDeliveryEvent,
  type NotificationDeliveryState,
} from '../notification-delivery.decider';
import { notificationSettingsDecider, type NotificationSettingsEvent, type NotificationSettingsState } from '../notification-settings.decider';
import type { NotificationsConfig } from '../notifications.config';
import { emailText, headspaceBody, slackBody, summaryLine } from '../shared/notification-body';
import { NotificationSecrets } from '../shared/notification-secrets';
import { EmailSender } from './email-sender';
import { WebhookSender, type SendOutcome } from './webhook-sender';

const BATCH = 64;
const PARALLEL = 8;
const MAX_BACKOFF_MS = 15 * 60_000;

type Pending = Exclude<NotificationDeliveryState, { status: 'none' }>;

/**
 * Sends the deliveries that have come due, under the sweeper lease (one instance at a time): each
 * target's in scheduling order, up to eight targets at once. A retried delivery waits for its next
 * attempt without holding up the target's later ones, so order is kept while receivers answer. Each try is recorded as
 * `notification-delivery.attempted` (then `succeeded`, or `failed` after the last attempt) at the
 * delivery stream's exact version, together with its due row, in one short transaction after the
 * network call. Delivery is at least once: a receiver dedupes by the `Headspace-Delivery` header.
 */
@Injectable()
export class NotificationDeliverySweeper extends Sweeper {
  private readonly q: string;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
    @Inject(APP_CONFIG) private readonly config: NotificationsConfig,
    private readonly store: EventStore,
    private readonly secrets: NotificationSecrets,
    private readonly webhooks: WebhookSender,
    private readonly email: EmailSender,
  ) {
    super(pool, schema, { name: 'notification-delivery', intervalMs: config.HS_OPS_NOTIFY_POLL_MS });
    this.q = quoteIdent(schema);
  }

  protected async sweep(): Promise<number | void> {
    const { rows } = await this.pool.query<{ delivery_id: string; project: string; target: string }>(
      `SELECT delivery_id, project, target FROM ${this.q}.notification_deliveries
        WHERE state = 'pending' AND next_attempt_at <= $1 ORDER BY seq LIMIT ${BATCH}`,
      [new Date().toISOString()],
    );
    // One queue per target, in scheduling order, so a receiver hears of a group's transitions in
    // order; targets are served side by side, up to PARALLEL, so a slow one holds up only itself.
    const byTarget = new Map<string, string[]>();
    for (const r of rows) {
      const key = `${r.project}\u0000${r.target}`;
      byTarget.set(key, [...(byTarget.get(key) ?? []), r.delivery_id]);
    }
    const queues = [...byTarget.values()];
    const worker = async () => {
      for (let queue = queues.shift(); queue && !this.stopping; queue = queues.shift()) {
        for (const id of queue) {
          if (this.stopping) return;
          await this.deliver(id).catch((error: Error) => this.logger.warn(`delivery ${id}: ${error.message}`));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, queues.length) }, worker));
    if (rows.length === BATCH) return 0; // more are due: go on at once
  }

  private async deliver(deliveryId: string): Promise<void> {
    const streamId = notificationDeliveryStreamId(deliveryId);
    const { state, version } = await this.store.aggregate(
      streamId,
      (s, e) => notificationDeliveryDecider.evolve(s, e as unknown as NotificationDeliveryEvent),
      notificationDeliveryDecider.initialState(),
    );
    if (state.status === 'none') return;
    if (state.status !== 'pending' || Date.parse(state.nextAttemptAt) > Date.now()) return this.syncRow(state);
    const { state: settings } = await this.store.aggregate(
      notificationSettingsStreamId(state.project),
      (s, e) => notificationSettingsDecider.evolve(s, e as unknown as NotificationSettingsEvent),
      notificationSettingsDecider.initialState(),
    );
    const outcome = await this.send(state, settings);
    const now = new Date().toISOString();
    const command: NotificationDeliveryCommand =
      'abandon' in outcome
        ? { type: 'abandon', reason: outcome.abandon, now }
        : { type: 'record-attempt', ...outcome, backoff: { baseMs: this.config.HS_OPS_NOTIFY_BACKOFF_MS, maxMs: MAX_BACKOFF_MS }, now };
    const events = notificationDeliveryDecider.decide(command, state);
    if (!events.length) return;
    const after = events.reduce(notificationDeliveryDecider.evolve, state as NotificationDeliveryState);
    try {
      await this.store.transaction(async (client) => {
        await this.store.append(streamId, events, { expected: version, commandId: `${deliveryId}:attempt:${state.attempts + 1}`, client });
        await this.syncRow(after, client);
      });
    } catch (error) {
      if (error instanceof ConcurrencyError) return; // an overlapping pass recorded this attempt first
      throw error;
    }
    if ('abandon' in outcome || !outcome.ok) {
      const why = 'abandon' in outcome ? outcome.abandon : outcome.error;
      this.logger.warn(`delivery ${deliveryId} (${state.channel} ${state.target}) attempt ${state.attempts + 1} failed: ${why}`);
    }
  }

  /** The try itself, or why there is nothing left to try (the target was removed or cannot be reached by design). */
  private async send(state: Pending, settings: NotificationSettingsState): Promise<SendOutcome | { abandon: string }> {
    const timeoutMs = this.config.HS_OPS_NOTIFY_TIMEOUT_MS;
    if (state.channel === 'email') {
      if (!settings.exists || !settings.email) return { abandon: 'email notifications were switched off' };
      if (!this.email.configured) return { abandon: 'HS_SMTP_URL is not set on ops-leon' };
      return this.email.send({ to: settings.email.to, subject: `[Headspace] ${summaryLine(state.payload)}`, text: emailText(state.payload) }, timeoutMs);
    }
    const hook = settings.exists ? settings.webhooks.find((w) => w.id === state.target) : undefined;
    if (!hook) return { abandon: `webhook ${state.target} was removed` };
    let secret: string;
    try {
      secret = this.secrets.open(state.project, hook.id, hook.sealedSecret);
    } catch (error) {
      return { abandon: `the webhook secret cannot be opened: ${(error as Error).message}` };
    }
    const body = JSON.stringify(hook.format === 'slack' ? slackBody(state.payload) : headspaceBody(state.deliveryId, state.payload));
    const headers = {
      [WEBHOOK_SIGNATURE_HEADER]: signWebhook(secret, body),
      'headspace-delivery': state.deliveryId,
      'headspace-event': state.payload.eventType,
      'headspace-attempt': String(state.attempts + 1),
    };
    return this.webhooks.send(hook.url, body, headers, timeoutMs);
  }

  private async syncRow(state: NotificationDeliveryState, client: Pick<Pool, 'query'> = this.pool): Promise<void> {
    if (state.status === 'none') return;
    await client.query(
      `UPDATE ${this.q}.notification_deliveries SET state = $2, attempts = $3, last_error = $4, next_attempt_at = $5 WHERE delivery_id = $1`,
      [state.deliveryId, state.status, state.attempts, state.lastError ?? null, state.nextAttemptAt],
    );
  }
}
