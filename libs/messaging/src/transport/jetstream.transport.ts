import { Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import { EventRegistry, namespacedSubject, type EventDefinition, type RequestDefinition } from '@headspace/contracts';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Pool } from 'pg';
import { lastValueFrom } from 'rxjs';
import { createConsumer, type EventConsumer } from '../consumer/event-consumer';
import { ensureStream, eventStreamFor } from '../provisioning/jetstream-provisioning';
import { retryTransient } from '../provisioning/transient-retry';
import { serveRequests, type RequestServer } from '../request-reply/serve-requests';
import { EventContext, type EventPatternOptions } from './event-context';

export interface JetStreamTransportOptions {
  connection: NatsConnection;
  pool: Pool;
  /** Schema holding the service's inbox and dead_letters tables. */
  schema: string;
}

interface EventRoute {
  definition: EventDefinition;
  handler: MessageHandler;
  options: EventPatternOptions;
}

const isRequestDefinition = (p: unknown): p is RequestDefinition =>
  typeof p === 'object' && p !== null && 'kind' in p && 'request' in p && 'response' in p;
const isEventDefinition = (p: unknown): p is EventDefinition =>
  typeof p === 'object' && p !== null && 'category' in p && 'schema' in p && 'schemaVersion' in p;

/**
 * The one way a service serves a subject (ARCHITECTURE.md §4). `@MessagePattern(contract)` answers
 * the contract's command or query over core NATS request/reply in the service's queue group, through
 * `serveRequests` (zod validation naming the field, NUL refusal, read-your-writes positions, the
 * reply envelope, the server span). `@EventPattern(eventDefinition, { durable })` applies events from
 * a durable JetStream consumer (`createConsumer`: explicit ack, MaxDeliver and backoff, the inbox in
 * the effect's transaction, dead letters, held through a database outage). Serving starts on
 * application bootstrap and drains before the connections close on shutdown.
 */
export class JetStreamTransport extends Server implements CustomTransportStrategy, OnApplicationBootstrap, BeforeApplicationShutdown {
  /** Event handler failures reach the consumer, which retries, holds or dead-letters the message. */
  override readonly propagatesEventHandlerErrors = true;
  protected override readonly logger = new Logger('JetStreamTransport');
  private readonly requests: Array<{ definition: RequestDefinition; handler: MessageHandler }> = [];
  private readonly events = new Map<string, EventRoute[]>();
  private readonly servers: RequestServer[] = [];
  private readonly consumers: EventConsumer[] = [];
  private started?: Promise<void>;
  private stopped?: Promise<void>;

  constructor(private readonly options: JetStreamTransportOptions) {
    super();
  }

  override addHandler(pattern: unknown, handler: MessageHandler, isEventHandler = false, extras: Record<string, unknown> = {}): void {
    if (!isEventHandler && isRequestDefinition(pattern)) {
      if (this.requests.some((r) => r.definition === pattern)) throw new Error(`${pattern.service} ${pattern.name} has two @MessagePattern handlers`);
      this.requests.push({ definition: pattern, handler });
      return;
    }
    if (isEventHandler && isEventDefinition(pattern)) {
      const options = extras as unknown as EventPatternOptions;
      if (!options.durable) throw new Error(`@EventPattern(${pattern.type}) needs { durable } in its options`);
      const routes = this.events.get(options.durable) ?? [];
      if (routes.some((r) => r.definition.type === pattern.type)) throw new Error(`${options.durable} has two handlers of ${pattern.type}`);
      this.events.set(options.durable, [...routes, { definition: pattern, handler, options }]);
      return;
    }
    throw new Error('JetStreamTransport serves @MessagePattern(request contract) and @EventPattern(event contract, { durable }) only');
  }

  onApplicationBootstrap(): Promise<void> {
    return this.start();
  }

  listen(callback: (error?: unknown) => void): void {
    this.start().then(() => callback(), callback);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.close();
  }

  close(): Promise<void> {
    this.stopped ??= (async () => {
      await this.started?.catch(() => undefined);
      await Promise.all([...this.servers.map((s) => s.stop()), ...this.consumers.map((c) => c.stop())]);
    })();
    return this.stopped;
  }

  on(): never {
    throw new Error('JetStreamTransport emits no events');
  }

  unwrap<T>(): T {
    return this.options.connection as T;
  }

  private start(): Promise<void> {
    this.started ??= (async () => {
      const nc = this.options.connection;
      for (const { definition, handler } of this.requests) {
        this.servers.push(serveRequests(nc, definition, (request, ctx) => this.invoke(handler, request, ctx)));
      }
      if (this.requests.length) await nc.flush();
      for (const [durable, routes] of this.events) this.consumers.push(await this.consume(durable, routes));
    })();
    return this.started;
  }

  /** Runs a handler through Nest's pipeline (pipes, interceptors, the WireErrorFilter) to its one result. */
  private async invoke(handler: MessageHandler, data: unknown, ctx: object): Promise<never> {
    return lastValueFrom(this.transformToObservable(await handler(data, ctx)), { defaultValue: undefined }) as Promise<never>;
  }

  private async consume(durable: string, routes: EventRoute[]): Promise<EventConsumer> {
    const nc = this.options.connection;
    const stream = routes.find((r) => r.options.stream)?.options.stream ?? eventStreamFor(routes[0].definition.service);
    // Declared here too (idempotently), so a consumer can start before the stream's owner.
    await ensureStream(await retryTransient(() => jetstreamManager(nc)), stream);
    const registry = new EventRegistry(routes.map((r) => r.definition));
    const handlers = new Map(routes.map((r) => [r.definition.type, r.handler]));
    const { durable: _, stream: __, filterSubject, ...tuning } = Object.assign({}, ...routes.map((r) => r.options)) as EventPatternOptions;
    return createConsumer({
      js: jetstream(nc),
      pool: this.options.pool,
      schema: this.options.schema,
      stream: stream.name,
      durable,
      filterSubjects: filterSubject ? namespacedSubject(filterSubject) : routes.map((r) => r.definition.subject),
      ...tuning,
      decode: (event) => ({ ...event, data: registry.parse(event.type, event.data) }),
      handle: (event, tx) => this.invoke(handlers.get(event.type)!, event, new EventContext(tx, durable)),
      onError: (error) => this.logger.warn(`${durable}: ${(error as Error).message ?? String(error)}`),
    });
  }
}
