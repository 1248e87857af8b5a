import { eventSubject } from '@headspace/contracts';
import { ProcessorRunner, type RecordedEvent } from '@headspace/event-store';
import { extractContext, injectContext, meter, recordCarrier, recordError, tracer, SpanKind, SpanStatusCode } from '@headspace/telemetry';
import { jetstreamManager, type PubAck } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { Pool } from 'pg';
import { encodeEnvelope, toEnvelope } from '../envelope/event-envelope';
import { headerCarrier } from '../headers/hs-headers';
import { MessagingError, MessagingErrorCodes } from '../messaging-error';
import { ensureStream, eventStreamFor, type StreamSpec } from '../provisioning/jetstream-provisioning';
import { retryTransient } from '../provisioning/transient-retry';
import { waitForCheckpoint } from './checkpoint-progress';
import { ConnectionWatch } from './connection-watch';
import { PipelinedPublisher } from './pipelined-publisher';
import { relayHeaders } from './relay-headers';
import { storedPastCheckpoint } from './stored-past-checkpoint';
import { quoteIdent } from '@headspace/event-store';

export const RELAY_PROCESSOR_NAME = 'relay:nats';

const publishedCounter = meter.createCounter('headspace.relay.published', { description: 'Events the relay had acknowledged by JetStream' });
const duplicateCounter = meter.createCounter('headspace.relay.duplicates', { description: 'Relay publishes JetStream dropped as duplicates (replays after a crash)' });
const alreadyStoredCounter = meter.createCounter('headspace.relay.already_stored', {
  description: 'Events the relay found in its stream past its checkpoint when it took the lease, and did not publish again',
});

export interface RelayOptions {
  pool: Pool;
  /** The service's PostgreSQL schema (its events table is the outbox). */
  schema: string;
  /** Publishes (PipelinedPublisher) and provisions; while it is down the relay fails a batch at once. */
  nc: NatsConnection;
  /** Subject token of the owning service: events go to `hs.evt.<service>.<type>` (namespaced by HS_NAMESPACE). */
  service: string;
  /** Stream the events must land in (checked by JetStream per publish). Default `HS_EVT_<SERVICE>`. */
  streamName?: string;
  /** Create/update the event stream before starting (default true). Extra settings may be given. */
  provision?: boolean | Partial<Omit<StreamSpec, 'name'>>;
  subjectFor?(event: RecordedEvent): string;
  /** Events per transaction/publish pipeline. Default 500. */
  batchSize?: number;
  pollIntervalMs?: number;
  leaseMs?: number;
  instanceId?: string;
  /** PubAck wait per message. Default 5000 ms. */
  publishTimeoutMs?: number;
  /** Processor (checkpoint) name; default `relay:nats`. */
  processorName?: string;
  /** Fault injection: runs after every PubAck of a batch arrived, before the checkpoint commits. */
  afterPublish?(events: RecordedEvent[]): Promise<void>;
  onError?(error: unknown): void;
}

export interface RelayStats {
  published: number;
  duplicates: number;
  /** Events found already in the stream on taking the lease (published before a crash, not checkpointed), not published again. */
  alreadyStored: number;
  batches: number;
}

export interface Relay {
  readonly runner: ProcessorRunner;
  readonly streamName: string;
  readonly stats: Readonly<RelayStats>;
  /** Resolves once everything committed before the call is acknowledged by JetStream and checkpointed. */
  waitUntilCaughtUp(timeoutMs?: number): Promise<void>;
  /** Events not yet relayed. */
  lag(): Promise<number>;
  /** Finishes the batch in hand and releases the lease. */
  stop(): Promise<void>;
  /** Simulates a crash: stops without releasing the lease. */
  kill(): Promise<void>;
}

/**
 * The transactional outbox relay (ARCHITECTURE.md §4). A ProcessorRunner named `relay:nats` tails
 * the events table in commit-safe order under a lease; each batch is published pipelined with
 * `Nats-Msg-Id = event_id` and every PubAck awaited before the handler returns, so the checkpoint
 * only advances past events JetStream has stored. A crash between the acks and the checkpoint
 * would republish what the stored checkpoint trails; JetStream's duplicate window (2 min) only
 * covers a quick restart, so each time the relay takes the lease it first reads, from the stream's
 * tail, which events past the checkpoint the stream already holds (storedPastCheckpoint) and skips
 * them: after any crash and any restart delay each event is stored once. Consumers dedupe by event
 * id besides (inbox).
 *
 * The checkpoint only ever moves past acknowledged events, as §4 asks, but it is stored at most
 * every 250 ms (`checkpointEveryMs` of the runner) and on stop, not after every batch: under a
 * steady trickle of appends a committed write per batch of one or two events would sit on every
 * event's path to JetStream. What a crash leaves past the checkpoint is found in the stream on
 * restart, above.
 *
 * The publishes run outside any transaction (`handleOutsideTransaction`): a batch transaction would
 * hold a transaction id across the PubAck round trips, and every processor's xmin fence in the
 * cluster would wait behind it. While the connection is down the relay fails fast rather than
 * waiting out publish timeouts. That mode is why the relay drives a ProcessorRunner itself instead of
 * extending the EventProcessor base of @headspace/platform, whose handlers write in the batch's
 * transaction.
 *
 * Where ARCHITECTURE.md §4 says `js.publish`: the publishes are JetStream's, with the same msgID,
 * expected stream and awaited PubAck, but their acks come back on one reply subscription
 * (PipelinedPublisher) instead of one request each, a fraction of the client CPU per event.
 */
export async function createRelay(options: RelayOptions): Promise<Relay> {
  const nc = options.nc;
  const defaults = eventStreamFor(options.service);
  const streamName = options.streamName ?? defaults.name;
  if (options.provision !== false) {
    const extra = typeof options.provision === 'object' ? options.provision : {};
    await ensureStream(await retryTransient(() => jetstreamManager(nc)), { ...defaults, ...extra, name: streamName });
  }
  const subjectFor = options.subjectFor ?? ((e: RecordedEvent) => eventSubject(options.service, e.type));
  const timeout = options.publishTimeoutMs ?? 5_000;
  const watch = new ConnectionWatch(nc);
  const publisher = new PipelinedPublisher(nc, timeout);
  const stats: RelayStats = { published: 0, duplicates: 0, alreadyStored: 0, batches: 0 };
  const attrs = { service: options.service };
  const processorName = options.processorName ?? RELAY_PROCESSOR_NAME;
  /** Ids past the stored checkpoint that the stream holds already, read when the lease was taken. */
  let stored = new Set<string>();

  const publishOne = (event: RecordedEvent): Promise<PubAck> => {
    const subject = subjectFor(event);
    const meta = event.metadata ?? {};
    const parent = meta.traceparent
      ? extractContext(recordCarrier({ traceparent: meta.traceparent, ...(meta.tracestate ? { tracestate: meta.tracestate } : {}) }), ROOT_CONTEXT)
      : ROOT_CONTEXT;
    const span = tracer.startSpan(
      `publish ${subject}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': 'nats',
          'messaging.operation.type': 'send',
          'messaging.destination.name': subject,
          'messaging.message.id': event.eventId,
          'headspace.stream_id': event.streamId,
        },
      },
      parent,
    );
    const headers = relayHeaders(event);
    // The consumer's span becomes a child of this one, in the trace of the command that appended.
    injectContext(headerCarrier(headers), trace.setSpan(parent, span));
    return publisher
      .publish(subject, encodeEnvelope(toEnvelope(event)), { msgID: event.eventId, headers, expectStream: streamName })
      .then(
        (ack) => {
          span.setAttribute('messaging.nats.stream_sequence', ack.seq);
          if (ack.duplicate) span.setAttribute('headspace.duplicate', true);
          span.setStatus({ code: SpanStatusCode.OK });
          span.end();
          return ack;
        },
        (error: unknown) => {
          recordError(span, error);
          span.end();
          throw error;
        },
      );
  };

  const runner = new ProcessorRunner({
    pool: options.pool,
    schema: options.schema,
    name: processorName,
    batchSize: options.batchSize ?? 500,
    pollIntervalMs: options.pollIntervalMs,
    leaseMs: options.leaseMs,
    instanceId: options.instanceId,
    onError: options.onError,
    // Publishing is idempotent (msgID) and touches no table: no transaction id held across the PubAcks.
    handleOutsideTransaction: true,
    async onLeaseAcquired() {
      stored = await storedPastCheckpoint({ pool: options.pool, q: quoteIdent(options.schema), processor: processorName, jsm: await jetstreamManager(nc), stream: streamName });
    },
    async handle(events) {
      if (!watch.connected) {
        throw new MessagingError(MessagingErrorCodes.disconnected, 'NATS is disconnected; the relay retries when it is back');
      }
      const fresh = stored.size === 0 ? events : events.filter((e) => !stored.has(e.eventId));
      const results = await Promise.allSettled(fresh.map(publishOne));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
      const duplicates = results.filter((r) => (r as PromiseFulfilledResult<PubAck>).value.duplicate).length;
      await options.afterPublish?.(events);
      const skipped = events.length - fresh.length;
      if (skipped) for (const e of events) stored.delete(e.eventId);
      stats.batches++;
      stats.published += fresh.length - duplicates;
      stats.duplicates += duplicates;
      stats.alreadyStored += skipped;
      publishedCounter.add(fresh.length - duplicates, attrs);
      if (duplicates) duplicateCounter.add(duplicates, attrs);
      if (skipped) alreadyStoredCounter.add(skipped, attrs);
    },
  });
  runner.start();

  return {
    runner,
    streamName,
    stats,
    waitUntilCaughtUp: (timeoutMs) => waitForCheckpoint(options.pool, quoteIdent(options.schema), runner.name, timeoutMs),
    lag: () => runner.lag(),
    async stop() {
      await runner.stop();
      watch.stop();
      publisher.close();
    },
    async kill() {
      await runner.kill();
      watch.stop();
      publisher.close();
    },
  };
}
