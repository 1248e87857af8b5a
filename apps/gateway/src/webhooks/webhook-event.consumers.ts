import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { namespacedStreamName, namespacedSubject } from '@headspace/contracts';
import { NATS_CONNECTION } from '@headspace/platform';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerConfig, type ConsumerMessages, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { cursorKeyOf } from '../stream/sse-cursor';
import { ConsumerLease } from './consumer-lease';
import { deliveriesFor } from './event-matching';
import { WebhookSubscriptionsRepository } from './webhook-subscriptions.repository';

const DURABLE = 'gateway-webhooks';
const TICK_MS = 2_000;
const LEASE_MS = 10_000;
const RETRY_MS = 1_000;
/** Messages scheduled in one transaction. */
const BATCH = 256;

interface Tail {
  name: string;
  key: string;
  messages?: ConsumerMessages;
  stopped: boolean;
  done?: Promise<void>;
}

/**
 * Matches every service's events to the webhook subscriptions: one durable JetStream consumer per
 * event stream (`HS_EVT_*`, re-discovered like the SSE hub's tails). The messages that have arrived
 * are scheduled together — one `webhook_deliveries` row per matching enabled subscription, and the
 * stream's position — in one transaction, and acked only after it commits: a crash re-reads them,
 * and the unique (subscription, event, origin) key makes the second scheduling a no-op. No network
 * in that transaction; the delivery sweeper sends. One gateway replica consumes at a time (a lease
 * in `checkpoints`), so each stream's deliveries are scheduled in stream order.
 */
@Injectable()
export class WebhookEventConsumers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookEventConsumers');
  private readonly lease: ConsumerLease;
  private jsm?: JetStreamManager;
  private readonly tails = new Map<string, Tail>();
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private stopping = false;
  /** Messages whose deliveries were scheduled (specs and the bench wait on it). */
  processed = 0;

  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    private readonly repo: WebhookSubscriptionsRepository,
  ) {
    this.lease = new ConsumerLease(repo.pool, repo.q, 'webhook-consumers', `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`, LEASE_MS);
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => void this.tick(), TICK_MS).unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.ticking;
    await this.stopTails();
    await this.lease.release().catch(() => undefined);
  }

  /** Renews the lease and discovers new streams; a lost lease stops the tails. */
  private tick(): Promise<void> {
    this.ticking ??= this.runTick().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private async runTick(): Promise<void> {
    if (this.stopping || this.nc.isClosed()) return;
    try {
      if (!(await this.lease.acquire())) return await this.stopTails();
      await this.discover();
    } catch (error) {
      if (!this.stopping) this.logger.warn(`webhook consumers: ${(error as Error).message}`);
    }
  }

  private async stopTails(): Promise<void> {
    const tails = [...this.tails.values()];
    for (const tail of tails) {
      tail.stopped = true;
      tail.messages?.stop();
    }
    await Promise.all(tails.map((t) => t.done));
  }

  private async discover(): Promise<void> {
    const prefix = namespacedStreamName('HS_EVT_');
    this.jsm ??= await jetstreamManager(this.nc);
    for await (const name of this.jsm.streams.names(namespacedSubject('hs.evt.>'))) {
      if (!name.startsWith(prefix)) continue;
      const key = cursorKeyOf(name, prefix);
      if (this.tails.has(key) || this.stopping) continue;
      const tail: Tail = { name, key, stopped: false };
      this.tails.set(key, tail);
      tail.done = this.runTail(tail)
        .catch((error: Error) => {
          if (!tail.stopped && !this.stopping) this.logger.warn(`webhook consumer of ${name} stopped: ${error.message}`);
        })
        .finally(() => {
          if (this.tails.get(key) === tail) this.tails.delete(key);
        });
    }
  }

  private async runTail(tail: Tail): Promise<void> {
    await this.ensureDurable(tail);
    const consumer = await jetstream(this.nc).consumers.get(tail.name, DURABLE);
    if (tail.stopped) return;
    const messages = await consumer.consume({ max_messages: BATCH });
    tail.messages = messages;
    // The iterator fills a buffer; the loop below schedules whatever has arrived in one transaction.
    const buffer: JsMsg[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    void (async () => {
      for await (const msg of messages) {
        buffer.push(msg);
        wake?.();
      }
    })().finally(() => {
      ended = true;
      wake?.();
    });
    while (!tail.stopped) {
      if (!buffer.length) {
        if (ended) break;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        continue;
      }
      const batch = buffer.splice(0, BATCH);
      if (!(await this.scheduleUntilDone(tail, batch))) break;
      for (const msg of batch) msg.ack();
    }
  }

  /**
   * The durable, created anew where the stream's position says each time this instance starts
   * consuming: every message up to the position was scheduled and committed, every one after it is
   * read again, at once and in order — messages a killed holder had taken are not left to wait out
   * their ack timeout behind later ones. Without a position: from the first subscription's creation.
   */
  private async ensureDurable(tail: Tail): Promise<void> {
    const jsm = this.jsm!;
    await jsm.consumers.delete(tail.name, DURABLE).catch(() => undefined);
    const { rows } = await this.repo.pool.query<{ position: string | null; since: Date | null }>(
      `SELECT (SELECT position FROM ${this.repo.q}.webhook_stream_positions WHERE stream_key = $1) AS position,
              (SELECT min(created_at) FROM ${this.repo.q}.webhook_subscriptions) AS since`,
      [tail.key],
    );
    const { since } = rows[0]!;
    // A position past the stream's end: the stream was deleted and created anew (sequences restart).
    const last = (await jsm.streams.info(tail.name)).state.last_seq;
    const position = rows[0]!.position !== null && Number(rows[0]!.position) <= last ? rows[0]!.position : null;
    const start: Partial<ConsumerConfig> =
      position !== null
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: Number(position) + 1 }
        : since
          ? { deliver_policy: DeliverPolicy.StartTime, opt_start_time: since.toISOString() }
          : { deliver_policy: DeliverPolicy.New };
    await jsm.consumers.add(tail.name, { durable_name: DURABLE, ack_policy: AckPolicy.Explicit, ack_wait: 30_000_000_000, max_ack_pending: 4 * BATCH, ...start });
  }

  /** Retries the transaction (PostgreSQL away) until it commits; false when stopping first. */
  private async scheduleUntilDone(tail: Tail, batch: JsMsg[]): Promise<boolean> {
    for (;;) {
      try {
        await this.schedule(tail, batch);
        this.processed += batch.length;
        return true;
      } catch (error) {
        if (tail.stopped || this.stopping) return false;
        this.logger.warn(`scheduling webhook deliveries of ${tail.name} #${batch[0]!.seq}… failed, retrying: ${(error as Error).message}`);
        for (const msg of batch) msg.working();
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  private async schedule(tail: Tail, batch: JsMsg[]): Promise<void> {
    await this.repo.transaction(async (tx) => {
      const subscriptions = await this.repo.enabledFilters(tx);
      await this.repo.schedule(batch.flatMap((msg) => deliveriesFor(msg, tail.key, subscriptions, 'live')), tx);
      await tx.query(
        `INSERT INTO ${this.repo.q}.webhook_stream_positions (stream_key, stream_name, position) VALUES ($1, $2, $3)
         ON CONFLICT (stream_key) DO UPDATE SET position = GREATEST(${this.repo.q}.webhook_stream_positions.position, EXCLUDED.position), stream_name = EXCLUDED.stream_name, updated_at = now()`,
        [tail.key, tail.name, Math.max(...batch.map((m) => m.seq))],
      );
    });
  }
}
