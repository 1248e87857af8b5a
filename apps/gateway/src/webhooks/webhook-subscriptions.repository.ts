import { Inject, Injectable } from '@nestjs/common';
import { dropAppendSignals, quoteIdent, releaseAppendSignals } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool, PoolClient } from 'pg';
import type { SubscriptionFilter } from './subscription.policy';
import type { WebhookDeliveryView, WebhookView } from './webhook.views';

type Db = Pick<Pool, 'query'>;

export interface SubscriptionRow extends WebhookView {
  sealedSecret: string;
}

export type SubscriptionChange = 'created' | 'updated' | 'enabled' | 'disabled' | 'auto-disabled' | 'deleted' | 'backfill-requested' | 'redelivery-requested';

export interface NewDelivery {
  deliveryId: string;
  subscriptionId: string;
  streamKey: string;
  streamSeq: number;
  eventId: string;
  eventType: string;
  origin: string;
  body: string;
}

const SCHEDULE_CHUNK = 1_000;
const iso = (v: Date | null) => (v ? v.toISOString() : null);

/** SQL of the webhook tables (migration 0003); every change of a subscription also lands in its log. */
@Injectable()
export class WebhookSubscriptionsRepository {
  readonly q: string;

  constructor(@Inject(PG_POOL) readonly pool: Pool, @Inject(SERVICE_SCHEMA) readonly schema: string) {
    this.q = quoteIdent(schema);
  }

  async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      // The gateway's own events appended in it (an auto-disable) wake its relay now.
      releaseAppendSignals(client);
      return result;
    } catch (error) {
      dropAppendSignals(client);
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async insert(row: SubscriptionRow, db: Db): Promise<void> {
    await db.query(
      `INSERT INTO ${this.q}.webhook_subscriptions (id, url, event_types, teams, projects, sealed_secret, description, enabled, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`,
      [row.id, row.url, JSON.stringify(row.eventTypes), json(row.teams), json(row.projects), row.sealedSecret, row.description, row.enabled, row.createdBy, row.createdAt],
    );
  }

  async update(row: SubscriptionRow, db: Db): Promise<void> {
    await db.query(
      `UPDATE ${this.q}.webhook_subscriptions SET url = $2, event_types = $3, teams = $4, projects = $5, sealed_secret = $6, description = $7,
              enabled = $8, disabled_reason = $9, failing_since = $10, updated_at = now() WHERE id = $1`,
      [row.id, row.url, JSON.stringify(row.eventTypes), json(row.teams), json(row.projects), row.sealedSecret, row.description, row.enabled, row.disabledReason, row.failingSince],
    );
  }

  async remove(id: string, db: Db): Promise<boolean> {
    const { rowCount } = await db.query(`DELETE FROM ${this.q}.webhook_subscriptions WHERE id = $1`, [id]);
    return rowCount === 1;
  }

  async log(subscriptionId: string, change: SubscriptionChange, actor: string, db: Db, reason?: string, details: Record<string, unknown> = {}): Promise<void> {
    await db.query(`INSERT INTO ${this.q}.webhook_subscription_log (subscription_id, change, actor, reason, details) VALUES ($1, $2, $3, $4, $5)`, [
      subscriptionId,
      change,
      actor,
      reason ?? null,
      JSON.stringify(details),
    ]);
  }

  async find(id: string, db: Db = this.pool, lock = false): Promise<SubscriptionRow | undefined> {
    const { rows } = await db.query<SubscriptionDbRow>(`SELECT * FROM ${this.q}.webhook_subscriptions WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
    return rows[0] ? toSubscription(rows[0]) : undefined;
  }

  async list(): Promise<SubscriptionRow[]> {
    const { rows } = await this.pool.query<SubscriptionDbRow>(`SELECT * FROM ${this.q}.webhook_subscriptions ORDER BY created_at, id`);
    return rows.map(toSubscription);
  }

  /** The enabled subscriptions' filters (what the consumers match events against). */
  async enabledFilters(db: Db): Promise<SubscriptionFilter[]> {
    const { rows } = await db.query<Pick<SubscriptionDbRow, 'id' | 'event_types' | 'teams' | 'projects'>>(`SELECT id, event_types, teams, projects FROM ${this.q}.webhook_subscriptions WHERE enabled`);
    return rows.map((r) => ({ id: r.id, eventTypes: r.event_types, teams: r.teams, projects: r.projects }));
  }

  /** Inserts the deliveries not scheduled before (a repeated event or backfill schedules nothing twice); returns how many were new. */
  async schedule(deliveries: NewDelivery[], db: Db): Promise<number> {
    let inserted = 0;
    // 8 parameters a row: chunks stay far below PostgreSQL's 65,535 per statement.
    for (let i = 0; i < deliveries.length; i += SCHEDULE_CHUNK) inserted += await this.scheduleChunk(deliveries.slice(i, i + SCHEDULE_CHUNK), db);
    return inserted;
  }

  private async scheduleChunk(deliveries: NewDelivery[], db: Db): Promise<number> {
    if (!deliveries.length) return 0;
    const cols = ['delivery_id', 'subscription_id', 'stream_key', 'stream_seq', 'event_id', 'event_type', 'origin', 'body'] as const;
    const values: unknown[] = [];
    const tuples = deliveries.map((d, i) => {
      values.push(d.deliveryId, d.subscriptionId, d.streamKey, d.streamSeq, d.eventId, d.eventType, d.origin, d.body);
      return `(${cols.map((_, j) => `$${i * cols.length + j + 1}`).join(', ')}, 'pending', now(), now())`;
    });
    const { rowCount } = await db.query(
      `INSERT INTO ${this.q}.webhook_deliveries (${cols.join(', ')}, state, scheduled_at, next_attempt_at) VALUES ${tuples.join(', ')}
       ON CONFLICT DO NOTHING`,
      values,
    );
    return rowCount ?? 0;
  }

  async deliveries(subscriptionId: string, limit: number): Promise<WebhookDeliveryView[]> {
    const { rows } = await this.pool.query<DeliveryDbRow>(`SELECT * FROM ${this.q}.webhook_deliveries WHERE subscription_id = $1 ORDER BY seq DESC LIMIT $2`, [subscriptionId, limit]);
    return rows.map(toDelivery);
  }

  async delivery(subscriptionId: string, deliveryId: string): Promise<(NewDelivery & WebhookDeliveryView) | undefined> {
    const { rows } = await this.pool.query<DeliveryDbRow>(`SELECT * FROM ${this.q}.webhook_deliveries WHERE subscription_id = $1 AND delivery_id = $2`, [subscriptionId, deliveryId]);
    const r = rows[0];
    return r ? { ...toDelivery(r), subscriptionId, streamKey: r.stream_key, streamSeq: Number(r.stream_seq), body: r.body } : undefined;
  }
}

interface SubscriptionDbRow {
  id: string;
  url: string;
  event_types: string[];
  teams: string[] | null;
  projects: string[] | null;
  description: string;
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: Date | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  sealed_secret: string;
}

interface DeliveryDbRow {
  delivery_id: string;
  event_id: string;
  event_type: string;
  origin: string;
  state: WebhookDeliveryView['state'];
  attempts: number;
  response_status: number | null;
  last_error: string | null;
  next_attempt_at: Date;
  scheduled_at: Date;
  finished_at: Date | null;
  stream_key: string;
  stream_seq: string;
  body: string;
}

const json = (v: readonly string[] | null) => (v ? JSON.stringify(v) : null);

function toSubscription(r: SubscriptionDbRow): SubscriptionRow {
  return {
    id: r.id,
    url: r.url,
    eventTypes: r.event_types,
    teams: r.teams,
    projects: r.projects,
    description: r.description,
    enabled: r.enabled,
    disabledReason: r.disabled_reason,
    failingSince: iso(r.failing_since),
    createdBy: r.created_by,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
    sealedSecret: r.sealed_secret,
  };
}

export function toDelivery(r: DeliveryDbRow): WebhookDeliveryView {
  return {
    deliveryId: r.delivery_id,
    eventId: r.event_id,
    eventType: r.event_type,
    origin: r.origin,
    state: r.state,
    attempts: r.attempts,
    responseStatus: r.response_status,
    lastError: r.last_error,
    nextAttemptAt: r.state === 'pending' ? iso(r.next_attempt_at) : null,
    scheduledAt: iso(r.scheduled_at)!,
    finishedAt: iso(r.finished_at),
  };
}
