import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import type { RequestDefinition } from '@headspace/contracts';
import { serveRequests, type RequestContext, type RequestServer } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';

/**
 * A handler of one command or query: serves its subject (in the service's queue group) from
 * bootstrap until shutdown. Subclasses are @Injectable, inject the NATS connection and implement
 * `handle`.
 */
export abstract class ServedHandler<D extends RequestDefinition> implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: RequestServer;

  protected constructor(
    private readonly definition: D,
    private readonly connection: NatsConnection,
  ) {}

  abstract handle(request: z.output<D['request']>, ctx: RequestContext): Promise<z.input<D['response']>>;

  onApplicationBootstrap(): void {
    this.server = serveRequests(this.connection, this.definition, (request, ctx) => this.handle(request, ctx));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }
}
