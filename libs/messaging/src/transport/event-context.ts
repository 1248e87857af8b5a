import type { PoolClient } from 'pg';
import type { ConsumerOptions } from '../consumer/event-consumer';
import type { StreamSpec } from '../provisioning/jetstream-provisioning';

/**
 * The second argument of an `@EventPattern` handler: the transaction that records the event id in
 * the consumer's inbox. Effects written through `tx` commit with it, so a redelivered event is
 * applied once.
 */
export class EventContext {
  constructor(
    readonly tx: PoolClient,
    readonly durable: string,
  ) {}
}

/**
 * The extras of `@EventPattern(eventDefinition | eventDefinition[], options)`. Handlers naming the
 * same durable share one JetStream consumer; each event type has one handler per durable.
 */
export interface EventPatternOptions extends Pick<ConsumerOptions, 'maxDeliver' | 'backoffMs' | 'ackWaitMs' | 'batch' | 'concurrency'> {
  /** Durable consumer name; also the `consumer` key of inbox and dead-letter rows. */
  durable: string;
  /** The stream holding the events. Default: the events' owner's stream (eventStreamFor). */
  stream?: StreamSpec;
  /**
   * One wildcard filter (without the HS_NAMESPACE prefix, e.g. `hs.evt.ops-leon.group.>`) instead of
   * one filter per event type: nats-server before 2.10 takes a single filter per consumer. Every
   * event type it matches needs a handler on this durable (others are dead-lettered as unknown).
   */
  filterSubject?: string;
}
