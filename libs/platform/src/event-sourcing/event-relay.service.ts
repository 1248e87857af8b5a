import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { createRelay, type Relay } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Pool } from 'pg';
import { NATS_CONNECTION, PG_POOL, SERVICE_NAME, SERVICE_SCHEMA } from '../platform.tokens';

/**
 * Publishes the service's own events to JetStream (the events table is the outbox). Registered by
 * `PlatformModule.forRoot({ publishEvents: true })`; one replica at a time relays (lease).
 */
@Injectable()
export class EventRelayService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('EventRelay');
  private relay?: Relay;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(SERVICE_NAME) private readonly service: string,
    @Inject(SERVICE_SCHEMA) private readonly schema: string,
  ) {}

  get current(): Relay | undefined {
    return this.relay;
  }

  async onApplicationBootstrap(): Promise<void> {
    this.relay = await createRelay({
      pool: this.pool,
      schema: this.schema,
      nc: this.nc,
      service: this.service,
      onError: (error) => this.logger.warn(`relay: ${(error as Error).message}`),
    });
    this.logger.log(`relaying ${this.schema}.events to JetStream stream ${this.relay.streamName}`);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.relay?.stop();
  }
}
