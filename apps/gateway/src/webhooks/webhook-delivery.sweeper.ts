import { Inject, Injectable } from '@nestjs/common';
import {
  WEBHOOK_DELIVERY_HEADER,
  WEBHOOK_EVENT_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  signWebhook,
  webhookSubscriptionDisabled,
  webhookSubscriptionStreamId,
  type EventData,
} from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { APP_CONFIG, Sweeper } from '@headspace/platform';
import type { PoolClient } from 'pg';
import { decideAttempt, decideHealth, type AttemptOutcome, type DeliveryAfterAttempt, type DeliveryPolicy } from './delivery.decider';
import { WebhookSecrets } from './webhook-secrets';
import { WebhookSender } from './webhook-sender';
import { WebhookSubscriptionsRepository } from './webhook-subscriptions.repository';
import type { WebhooksConfig } from './webhooks.config';

/** Rows read per queue in one pass. */
const PER_QUEUE = 128;

interface DueRow {
  delivery_id: string;
  subscription_id: string;
  stream_key: string;
  event_id: string;
  body: string;
  attempts: number;
  first_attempt_at: Date | null;
  next_attempt_at: Date;
  url: string;
  sealed_secret: string;
}

interface Attempt {
  row: DueRow;
  outcome: AttemptOutcome & { durationMs: number };
  after: DeliveryAfterAttempt;
  now: string;
}

/**
 * Sends webhook deliveries under the sweeper lease. A queue is one subscription's deliveries from
 * one event stream, in stream order: only its head may be sent, so a later event waits until the
 * earlier one is delivered or given up (HS_WEBHOOK_RETRY_FOR_MS). Queues go side by side, up to
 * HS_WEBHOOK_PARALLEL. A queue's attempts of one pass are recorded together (rows, attempt log,
 * the subscription's failing streak) in one short transaction after the network calls: at least
 * once, never lost.
 */
@Injectable()
export class WebhookDeliverySweeper extends Sweeper {
  private readonly policy: DeliveryPolicy;

  constructor(
    private readonly repo: WebhookSubscriptionsRepository,
    @Inject(APP_CONFIG) private readonly config: WebhooksConfig,
    private readonly secrets: WebhookSecrets,
    private readonly sender: WebhookSender,
    private readonly events: EventStore,
  ) {
    super(repo.pool, repo.schema, { name: 'webhook-delivery', intervalMs: config.HS_WEBHOOK_POLL_MS });
    this.policy = {
      backoffMs: config.HS_WEBHOOK_BACKOFF_MS,
      backoffMaxMs: config.HS_WEBHOOK_BACKOFF_MAX_MS,
      retryForMs: config.HS_WEBHOOK_RETRY_FOR_MS,
      disableAfterMs: config.HS_WEBHOOK_DISABLE_AFTER_MS,
    };
  }

  protected async sweep(): Promise<number | void> {
    const q = this.repo.q;
    // The head of every queue of an enabled subscription, and the rows behind it, when the head is due.
    const { rows } = await this.repo.pool.query<DueRow>(
      `WITH heads AS (
         SELECT DISTINCT ON (subscription_id, stream_key) subscription_id, stream_key, next_attempt_at
           FROM ${q}.webhook_deliveries WHERE state = 'pending' ORDER BY subscription_id, stream_key, stream_seq, seq)
       SELECT d.delivery_id, d.subscription_id, d.stream_key, d.event_id, d.body, d.attempts, d.first_attempt_at, d.next_attempt_at, s.url, s.sealed_secret
         FROM heads h
         JOIN ${q}.webhook_subscriptions s ON s.id = h.subscription_id AND s.enabled
         CROSS JOIN LATERAL (
           SELECT * FROM ${q}.webhook_deliveries d2
            WHERE d2.subscription_id = h.subscription_id AND d2.stream_key = h.stream_key AND d2.state = 'pending'
            ORDER BY d2.stream_seq, d2.seq LIMIT ${PER_QUEUE}) d
        WHERE h.next_attempt_at <= now()
        ORDER BY d.subscription_id, d.stream_key, d.stream_seq, d.seq`,
    );
    const queues = new Map<string, DueRow[]>();
    for (const r of rows) {
      const key = `${r.subscription_id}\u0000${r.stream_key}`;
      queues.set(key, [...(queues.get(key) ?? []), r]);
    }
    const pending = [...queues.values()];
    let sent = 0;
    const worker = async () => {
      for (let queue = pending.shift(); queue && !this.stopping; queue = pending.shift()) {
        sent += await this.drain(queue).catch((error: Error) => {
          this.logger.warn(`webhook queue of ${queue[0]!.subscription_id}: ${error.message}`);
          return 1;
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.config.HS_WEBHOOK_PARALLEL, pending.length) }, worker));
    if (sent > 0) return 0;
  }

  /**
   * Sends a queue's due rows one after the other until one fails (the rest wait behind it), then
   * records every attempt in one transaction. A crash before that commit sends them again: at least once.
   */
  private async drain(queue: DueRow[]): Promise<number> {
    const tried: Attempt[] = [];
    for (const row of queue) {
      if (this.stopping || row.next_attempt_at.getTime() > Date.now()) break;
      const outcome = await this.send(row);
      const now = new Date().toISOString();
      tried.push({ row, outcome, now, after: decideAttempt({ attempts: row.attempts, firstAttemptAt: row.first_attempt_at?.toISOString() ?? null }, outcome, this.policy, now) });
      if (!outcome.ok) {
        this.logger.warn(`webhook delivery ${row.delivery_id} attempt ${row.attempts + 1} failed: ${outcome.error}`);
        break;
      }
    }
    if (tried.length) await this.record(tried);
    return tried.length;
  }

  private async send(row: DueRow): Promise<AttemptOutcome & { durationMs: number }> {
    let secret: string;
    try {
      secret = this.secrets.open(row.subscription_id, row.sealed_secret);
    } catch (error) {
      return { ok: false, error: `the subscription secret cannot be opened: ${(error as Error).message}`, durationMs: 0 };
    }
    return this.sender.send(
      row.url,
      row.body,
      {
        [WEBHOOK_SIGNATURE_HEADER]: signWebhook(secret, row.body),
        [WEBHOOK_DELIVERY_HEADER]: row.delivery_id,
        [WEBHOOK_EVENT_ID_HEADER]: row.event_id,
        'Headspace-Attempt': String(row.attempts + 1),
      },
      this.config.HS_WEBHOOK_TIMEOUT_MS,
    );
  }

  /** The rows, the attempt log and the subscription's failing streak; an attempt an overlapping pass recorded first changes nothing. */
  private async record(tried: Attempt[]): Promise<void> {
    const q = this.repo.q;
    const col = <T>(f: (a: Attempt) => T) => tried.map(f);
    await this.repo.transaction(async (tx) => {
      await tx.query(
        `UPDATE ${q}.webhook_deliveries d SET state = v.state, attempts = v.attempts, response_status = v.status, last_error = v.error,
                first_attempt_at = v.first_at, next_attempt_at = COALESCE(v.next_at, d.next_attempt_at), finished_at = v.finished_at
           FROM unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::text[], $6::timestamptz[], $7::timestamptz[], $8::timestamptz[], $9::int[])
                AS v(id, state, attempts, status, error, first_at, next_at, finished_at, before)
          WHERE d.delivery_id = v.id AND d.state = 'pending' AND d.attempts = v.before`,
        [
          col((a) => a.row.delivery_id),
          col((a) => a.after.state),
          col((a) => a.after.attempts),
          col((a) => a.outcome.responseStatus ?? null),
          col((a) => (a.after.state === 'succeeded' ? null : a.after.lastError)),
          col((a) => a.after.firstAttemptAt),
          col((a) => (a.after.state === 'pending' ? a.after.nextAttemptAt : null)),
          col((a) => (a.after.state === 'pending' ? null : a.after.finishedAt)),
          col((a) => a.row.attempts),
        ],
      );
      await tx.query(
        `INSERT INTO ${q}.webhook_delivery_attempts (delivery_id, attempt, ok, response_status, error, duration_ms, at)
         SELECT * FROM unnest($1::text[], $2::int[], $3::boolean[], $4::int[], $5::text[], $6::int[], $7::timestamptz[]) ON CONFLICT DO NOTHING`,
        [
          col((a) => a.row.delivery_id),
          col((a) => a.after.attempts),
          col((a) => a.outcome.ok),
          col((a) => a.outcome.responseStatus ?? null),
          col((a) => a.outcome.error?.slice(0, 500) ?? null),
          col((a) => Math.round(a.outcome.durationMs)),
          col((a) => a.now),
        ],
      );
      await this.recordHealth(tried[tried.length - 1]!, tried.some((a) => a.outcome.ok), tx);
    });
  }

  /** The failing streak after a queue's pass; too long a streak disables the subscription and records `webhook.subscription-disabled` with it. */
  private async recordHealth(last: Attempt, anySucceeded: boolean, tx: PoolClient): Promise<void> {
    const subscriptionId = last.row.subscription_id;
    const sub = await this.repo.find(subscriptionId, tx, true);
    if (!sub || !sub.enabled) return;
    const health = decideHealth(anySucceeded ? null : sub.failingSince, last.outcome.ok, this.policy, last.now);
    if (health.failingSince === sub.failingSince && !health.disable) return;
    await this.repo.update({ ...sub, failingSince: health.failingSince, ...(health.disable ? { enabled: false, disabledReason: health.disable } : {}) }, tx);
    if (health.disable) {
      await this.repo.log(subscriptionId, 'auto-disabled', 'webhook-delivery', tx, health.disable);
      const data: EventData<typeof webhookSubscriptionDisabled> = {
        subscriptionId,
        reason: health.disable,
        teams: sub.teams,
        projects: sub.projects,
        failingSince: health.failingSince!,
        lastFailure: {
          deliveryId: last.row.delivery_id,
          eventId: last.row.event_id,
          attempt: last.after.attempts,
          responseStatus: last.outcome.responseStatus ?? null,
          error: (last.outcome.error ?? 'failed').slice(0, 500),
          at: last.now,
        },
        at: last.now,
      };
      // One disable per failing streak: a pass that overlapped this one records the same event once.
      await this.events.append(webhookSubscriptionStreamId(subscriptionId), [{ type: webhookSubscriptionDisabled.type, data }], {
        expected: 'any',
        commandId: `auto-disable:${subscriptionId}:${health.failingSince}`,
        metadata: { actor: 'webhook-delivery' },
        client: tx,
      });
      this.logger.warn(`webhook subscription ${subscriptionId} disabled: ${health.disable}`);
    }
  }
}
