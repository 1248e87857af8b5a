import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { getSpend } from '@headspace/contracts';
import type { z } from 'zod';
import { ReportingQueries } from '../reporting.queries';

/** `get-spend`: spend grouped by any attribution key (or model, tier, day) over a period. */
@Controller()
export class GetSpendHandler {
  constructor(
    private readonly queries: ReportingQueries,
  ) {}

  @MessagePattern(getSpend)
  async handle(request: z.output<typeof getSpend.request>) {
    const { groupBy, ...filters } = request;
    return this.queries.spend(filters, groupBy);
  }
}
