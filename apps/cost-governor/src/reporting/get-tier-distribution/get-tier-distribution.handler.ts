import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { getTierDistribution } from '@headspace/contracts';
import type { z } from 'zod';
import { ReportingQueries } from '../reporting.queries';

/** `get-tier-distribution`: calls and USD per model tier. */
@Controller()
export class GetTierDistributionHandler {
  constructor(
    private readonly queries: ReportingQueries,
  ) {}

  @MessagePattern(getTierDistribution)
  async handle(request: z.output<typeof getTierDistribution.request>) {
    return this.queries.tierDistribution(request);
  }
}
