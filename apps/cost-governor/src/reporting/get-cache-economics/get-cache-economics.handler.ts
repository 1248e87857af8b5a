import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { getCacheEconomics } from '@headspace/contracts';
import type { z } from 'zod';
import { PriceCatalog } from '../../prices/price-catalog.service';
import { ReportingQueries } from '../reporting.queries';

/** `get-cache-economics`: cache hit rate per agent and team, savings and break-even reads. */
@Controller()
export class GetCacheEconomicsHandler {
  constructor(
    private readonly queries: ReportingQueries,
    private readonly catalog: PriceCatalog,
  ) {}

  @MessagePattern(getCacheEconomics)
  async handle(request: z.output<typeof getCacheEconomics.request>) {
    return this.queries.cacheEconomics(request.team, (await this.catalog.fresh()).table, await this.queries.alertingAgents(request.team));
  }
}
