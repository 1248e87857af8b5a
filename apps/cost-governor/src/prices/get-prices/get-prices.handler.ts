import { Inject, Injectable } from '@nestjs/common';
import { getPrices } from '@headspace/contracts';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { ServedHandler } from '@headspace/platform';
import { PriceCatalog } from '../price-catalog.service';

/** `prices.get`: the price table in effect. */
@Injectable()
export class GetPricesHandler extends ServedHandler<typeof getPrices> {
  constructor(
    private readonly catalog: PriceCatalog,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(getPrices, nc);
  }

  async handle() {
    return { table: (await this.catalog.fresh()).table };
  }
}
