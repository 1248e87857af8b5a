import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import type { RequestDefinition } from '@headspace/contracts';
import { serveRequests, type RequestContext, type RequestServer } from '@headspace/messaging';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';

/** One command or query served on its subject from bootstrap until shutdown (the queue group is the service). */
export abstract class ServedHandler<D extends RequestDefinition> implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: RequestServer;
  protected abstract readonly definition: D;
  protected abstract readonly nc: NatsConnection;

  abstract handle(request: z.output<D['request']>, ctx: RequestContext): Promise<z.input<D['response']>>;

  onApplicationBootstrap(): void {
    this.server = serveRequests(this.nc, this.definition, (request, ctx) => this.handle(request, ctx));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }
}
