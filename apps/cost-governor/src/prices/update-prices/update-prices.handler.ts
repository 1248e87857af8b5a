import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { updatePrices } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { metadataOf } from '../../shared/event-metadata';
import { ServedHandler } from '@headspace/platform';
import { PriceCatalog } from '../price-catalog.service';

/** `prices.update`: publishes a newer price table (`price-table.published`), in effect at once. */
@Injectable()
export class UpdatePricesHandler extends ServedHandler<typeof updatePrices> {
  constructor(
    private readonly catalog: PriceCatalog,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(updatePrices, nc);
  }

  async handle(request: z.output<typeof updatePrices.request>, ctx: RequestContext) {
    const commandId = ctx.commandId ?? randomUUID();
    const streamVersion = await this.catalog.publish(request.table, 'command', request.publishedBy, commandId, metadataOf(ctx, commandId));
    return { version: this.catalog.current().version, streamVersion: streamVersion.toString() };
  }
}
