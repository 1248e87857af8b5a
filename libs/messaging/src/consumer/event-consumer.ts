import { extractContext, meter, withSpan, SpanKind } from '@headspace/telemetry';
import type { Consumer, ConsumerMessages, JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import type { Pool, PoolClient } from 'pg';
import { decodeEnvelope, type EnvelopeEvent } from '../envelope/event-envelope';
import { headersToRecord, optionalHeaderCarrier } from '../headers/hs-headers';
import { ensureDurableConsumer } from '../provisioning/jetstream-provisioning';
import { writeDeadLetter } from './dead-letter-writer';
import { beginWithInbox } from './inbox';
import { watchConsumerPending } from './jetstream-consumer-metrics';
import { asDatabaseUnavailable, DatabaseUnavailableError, quoteIdent } from '@headspace/event-store';

const handledCounter = meter.createCounter('headspace.consumer.handled', { description: 'Messages a consumer applied' });
const duplicateCounter = meter.createCounter('headspace.consumer.duplicates', { description: 'Messages skipped because their event id was in the inbox' });
const failedCounter = meter.createCounter('headspace.consumer.failures', { description: 'Handler failures (each nak)' });
const deadCounter = meter.createCounter('headspace.consumer.dead_lettered', { description: 'Messages moved to dead_letters' });

/** What a handler receives: the decoded envelope plus where and how often it was delivered. */
export interface ConsumedEvent<T = unknown> extends EnvelopeEvent<T> {
  subject: string;
  streamSequence: number;
  deliveryCount: number;
  headers: Record<string, string>;
}

export interface ConsumerOptions {
  js: JetStreamClient;
  pool: Pool;
  /** Schema holding this service's inbox and dead_letters tables. */
  schema: string;
  stream: string;
  /** Durable name; also the `consumer` key of inbox and dead-letter rows. Instances sharing it share the work. */
  durable: string;
  filterSubjects: string | string[];
  /** Runs inside the transaction that records the event id in the inbox: write effects through `tx`. */
  handle(event: ConsumedEvent, tx: PoolClient): Promise<void>;
  /** Handler attempts before a message is dead-lettered. Default 5. */
  maxDeliver?: number;
  /** Nak delay after the n-th failed attempt (the last entry repeats). Default [1 s, 5 s, 15 s, 30 s]. */
  backoffMs?: number[];
  /** Unacknowledged time before JetStream redelivers; long handlers are kept alive with `working()`. Default 30 s. */
  ackWaitMs?: number;
  /** Messages pulled ahead. Default 32. */
  batch?: number;
  /** Handlers running at once. 1 (the default) keeps delivery order. */
  concurrency?: number;
  /** Create/update the durable consumer before consuming (default true). */
  provision?: boolean;
  /** Extra validation of a decoded event (e.g. the contract's schema); a throw dead-letters at once. */
  decode?(event: ConsumedEvent): ConsumedEvent;
  /** Handler failures and consume-loop errors (the message outcome is handled already). Default: console.error. */
  onError?(error: unknown, event?: ConsumedEvent): void;
}

export interface ConsumerStats {
  handled: number;
  duplicates: number;
  failures: number;
  deadLettered: number;
}

export interface EventConsumer {
  readonly durable: string;
  readonly stats: Readonly<ConsumerStats>;
  /** Stops pulling, naks what was pulled but not started, waits for running handlers. */
  stop(): Promise<void>;
}

/**
 * A durable JetStream pull consumer with an idempotent inbox (ARCHITECTURE.md §4). Per message:
 * BEGIN and INSERT the event id into `<schema>.inbox` (ON CONFLICT DO NOTHING), in one round trip;
 * if it was new, run the handler on the same transaction; COMMIT; ack. A failing handler rolls back and naks with backoff;
 * on its `maxDeliver`-th failure the message goes to `<schema>.dead_letters` and is terminated.
 * Messages that keep coming back unacknowledged (a handler that crashes the process or outlives the
 * ack wait) are dead-lettered unrun after 2×maxDeliver deliveries; the server's own MaxDeliver is
 * 2×maxDeliver+1, so JetStream never drops one silently before that.
 */
export async function createConsumer(options: ConsumerOptions): Promise<EventConsumer> {
  const maxDeliver = options.maxDeliver ?? 5;
  const runawayLimit = maxDeliver * 2;
  const backoff = options.backoffMs?.length ? options.backoffMs : [1_000, 5_000, 15_000, 30_000];
  const ackWaitMs = options.ackWaitMs ?? 30_000;
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const q = quoteIdent(options.schema);
  const labels = { consumer: options.durable };
  const stats: ConsumerStats = { handled: 0, duplicates: 0, failures: 0, deadLettered: 0 };
  const report = options.onError ?? ((error: unknown) => console.error(`[consumer ${options.durable}]`, error));

  if (options.provision !== false) {
    await ensureDurableConsumer(await options.js.jetstreamManager(), options.stream, {
      durable: options.durable,
      filterSubjects: options.filterSubjects,
      ackWaitMs,
      maxDeliver: runawayLimit + 1,
      maxAckPending: Math.max(1_000, (options.batch ?? 32) * 4),
    });
  }

  const unwatchPending = watchConsumerPending(options.js, options.stream, options.durable);
  // Exported from the start at 0, so a dashboard's rate over them has a series before the first failure.
  deadCounter.add(0, labels);
  failedCounter.add(0, labels);

  let stopping = false;
  let messages: ConsumerMessages | undefined;
  let wakeSleep: (() => void) | undefined;
  /** Messages held through a database outage wait here; a stop ends their waits. */
  const outageWaits = new Set<() => void>();
  const outagePause = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        outageWaits.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      outageWaits.add(done);
    });

  const decode = (msg: JsMsg): ConsumedEvent => {
    const event: ConsumedEvent = {
      ...decodeEnvelope(msg.data),
      subject: msg.subject,
      streamSequence: msg.seq,
      deliveryCount: msg.info.deliveryCount,
      headers: headersToRecord(msg.headers),
    };
    return options.decode ? options.decode(event) : event;
  };

  const deadLetter = async (msg: JsMsg, error: unknown, event?: ConsumedEvent): Promise<void> => {
    try {
      await writeDeadLetter(options.pool, q, options.durable, msg, error, event?.eventId);
      msg.term(); // no reason text: nats-server < 2.10.4 ignores `+TERM <reason>` altogether
      stats.deadLettered++;
      deadCounter.add(1, labels);
    } catch (writeError) {
      report(writeError, event);
      msg.nak(backoff[backoff.length - 1]);
    }
  };

  /** Inbox insert + handler in one transaction; false when the event had been handled already. */
  const applyOnce = async (event: ConsumedEvent): Promise<boolean> => {
    const client = await options.pool.connect();
    let broken: Error | undefined;
    try {
      const [fresh] = await beginWithInbox(client, q, options.durable, [event.eventId]);
      if (fresh) await options.handle(event, client);
      await client.query('COMMIT');
      return fresh;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    } finally {
      client.release(broken);
    }
  };

  /**
   * A database outage (PostgreSQL restarting) is not the message's fault: the message is held, kept
   * alive by the caller's `working()`, and applied again once PostgreSQL answers, spending no
   * delivery. Redeliveries would count towards dead-lettering a good message.
   */
  const applyThroughOutage = async (event: ConsumedEvent): Promise<boolean> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await applyOnce(event);
      } catch (error) {
        const unavailable = asDatabaseUnavailable(error);
        if (!unavailable || stopping) throw unavailable ?? error;
        if (attempt === 0) report(unavailable, event);
        await outagePause(Math.min(5_000, 100 * 2 ** Math.min(attempt, 6)));
      }
    }
  };

  const processMessage = async (msg: JsMsg): Promise<void> => {
    let event: ConsumedEvent;
    try {
      event = decode(msg);
    } catch (error) {
      return deadLetter(msg, error); // malformed: retrying cannot help
    }
    if (msg.info.deliveryCount > runawayLimit) {
      return deadLetter(msg, new Error(`not acknowledged after ${msg.info.deliveryCount} deliveries (handler crashed or outlived the ack wait)`), event);
    }
    const keepAlive = setInterval(() => msg.working(), Math.max(1_000, ackWaitMs / 2));
    try {
      const fresh = await inSpan(msg, event, () => applyThroughOutage(event));
      msg.ack();
      if (fresh) {
        stats.handled++;
        handledCounter.add(1, labels);
      } else {
        stats.duplicates++;
        duplicateCounter.add(1, labels);
      }
    } catch (error) {
      stats.failures++;
      failedCounter.add(1, labels);
      report(error, event);
      // Stopping during an outage: another instance (or this one, restarted) applies it later.
      if (error instanceof DatabaseUnavailableError) msg.nak(backoff[0]);
      else if (msg.info.deliveryCount >= maxDeliver) await deadLetter(msg, error, event);
      else msg.nak(backoff[Math.min(msg.info.deliveryCount, backoff.length) - 1]);
    } finally {
      clearInterval(keepAlive);
    }
  };

  /** The consumer span of one event, parented on the trace context its message carries. */
  const inSpan = <T>(msg: JsMsg, event: ConsumedEvent, fn: () => Promise<T>): Promise<T> =>
    withSpan(
      `process ${msg.subject}`,
      {
        kind: SpanKind.CONSUMER,
        parent: extractContext(optionalHeaderCarrier(msg.headers), ROOT_CONTEXT),
        attributes: {
          'messaging.system': 'nats',
          'messaging.operation.type': 'process',
          'messaging.destination.name': msg.subject,
          'messaging.consumer.group.name': options.durable,
          'messaging.message.id': event.eventId,
          'messaging.nats.delivery_count': msg.info.deliveryCount,
        },
      },
      fn,
    );

  /**
   * Group commit: messages that arrived together are applied in one transaction (inbox rows and
   * effects for all of them, one commit), in order, then acked. Any failure rolls the group back and
   * its messages go through one by one, so a poison message is isolated and dead-lettered alone.
   * Only first deliveries are grouped; redeliveries always take the one-by-one path.
   */
  const processGroup = async (group: JsMsg[]): Promise<void> => {
    let events: ConsumedEvent[];
    try {
      events = group.map(decode);
    } catch {
      events = [];
    }
    if (group.length === 1 || events.length !== group.length || group.some((m) => m.info.deliveryCount > 1)) {
      for (const msg of group) await processMessage(msg);
      return;
    }
    let client: PoolClient;
    try {
      client = await options.pool.connect();
    } catch {
      // PostgreSQL away: one by one, each held until it answers (a throw here would end the worker).
      for (const msg of group) await processMessage(msg);
      return;
    }
    let broken: Error | undefined;
    let fresh: boolean[];
    try {
      fresh = await beginWithInbox(client, q, options.durable, events.map((e) => e.eventId));
      for (let i = 0; i < group.length; i++) {
        const event = events[i];
        if (fresh[i]) await inSpan(group[i], event, () => options.handle(event, client));
      }
      await client.query('COMMIT');
    } catch {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      client.release(broken);
      for (const msg of group) await processMessage(msg);
      return;
    }
    client.release();
    for (let i = 0; i < group.length; i++) {
      group[i].ack();
      if (fresh[i]) {
        stats.handled++;
        handledCounter.add(1, labels);
      } else {
        stats.duplicates++;
        duplicateCounter.add(1, labels);
      }
    }
  };

  const consumeOnce = async (consumer: Consumer): Promise<void> => {
    const batch = options.batch ?? 32;
    messages = await consumer.consume({ max_messages: batch });
    if (stopping) void messages.close(); // ends the iteration below (close resolves once it is drained)
    if (concurrency === 1) return consumeInGroups(messages, batch);
    const inflight = new Set<Promise<void>>();
    for await (const msg of messages) {
      if (stopping) {
        msg.nak(); // pulled but not started: let another instance have it now
        continue;
      }
      const p: Promise<void> = processMessage(msg).finally(() => inflight.delete(p));
      inflight.add(p);
      if (inflight.size >= concurrency) await Promise.race(inflight);
    }
    await Promise.all(inflight);
  };

  /** Ordered delivery: whatever has arrived while the previous group was applied forms the next group. */
  const consumeInGroups = async (source: ConsumerMessages, maxGroup: number): Promise<void> => {
    const queue: JsMsg[] = [];
    let arrived: (() => void) | undefined;
    let ended = false;
    const worker = (async () => {
      for (;;) {
        if (queue.length === 0) {
          if (ended) return;
          await new Promise<void>((resolve) => (arrived = resolve));
          continue;
        }
        const group = queue.splice(0, maxGroup);
        if (stopping) {
          for (const msg of group) msg.nak();
          continue;
        }
        await processGroup(group);
      }
    })();
    try {
      for await (const msg of source) {
        if (stopping) {
          msg.nak(); // pulled but not started: let another instance have it now
          continue;
        }
        queue.push(msg);
        arrived?.();
        arrived = undefined;
      }
    } finally {
      ended = true;
      arrived?.();
      await worker;
    }
  };

  const loop = (async () => {
    let failures = 0;
    while (!stopping) {
      try {
        await consumeOnce(await options.js.consumers.get(options.stream, options.durable));
        failures = 0;
      } catch (error) {
        if (stopping) break;
        report(error);
        failures++;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(5_000, 100 * 2 ** Math.min(failures, 6)));
          wakeSleep = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  })();

  return {
    durable: options.durable,
    stats,
    async stop() {
      stopping = true;
      wakeSleep?.();
      for (const wake of [...outageWaits]) wake();
      await messages?.close();
      await loop;
      unwatchPending();
    },
  };
}
