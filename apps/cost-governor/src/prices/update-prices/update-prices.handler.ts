import { randomUUID } from 'node:crypto';
import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { updatePrices } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { metadataOf } from '../../shared/event-metadata';
import { PriceCatalog } from '../price-catalog.service';

/** `prices.update`: publishes a newer price table (`price-table.published`), in effect at once. */
@Controller()
export class UpdatePricesHandler {
  constructor(
    private readonly catalog: PriceCatalog,
  ) {}

  @MessagePattern(updatePrices)
  async handle(@Payload() request: z.output<typeof updatePrices.request>, @Ctx() ctx: RequestContext) {
    const commandId = ctx.commandId ?? randomUUID();
    const streamVersion = await this.catalog.publish(request.table, 'command', request.publishedBy, commandId, metadataOf(ctx, commandId));
    return { version: this.catalog.current().version, streamVersion: streamVersion.toString() };
  }
}
