import { Inject, Injectable } from '@nestjs/common';
import { getCacheEconomics } from '@headspace/contracts';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { PriceCatalog } from '../../prices/price-catalog.service';
import { ServedHandler } from '@headspace/platform';
import { ReportingQueries } from '../reporting.queries';

/** `get-cache-economics`: cache hit rate per agent and team, savings and break-even reads. */
@Injectable()
export class GetCacheEconomicsHandler extends ServedHandler<typeof getCacheEconomics> {
  constructor(
    private readonly queries: ReportingQueries,
    private readonly catalog: PriceCatalog,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(getCacheEconomics, nc);
  }

  async handle(request: z.output<typeof getCacheEconomics.request>) {
    return this.queries.cacheEconomics(request.team, (await this.catalog.fresh()).table, await this.queries.alertingAgents(request.team));
  }
}
