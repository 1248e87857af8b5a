import { Inject, Injectable } from '@nestjs/common';
import { getTierDistribution } from '@headspace/contracts';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { ServedHandler } from '@headspace/platform';
import { ReportingQueries } from '../reporting.queries';

/** `get-tier-distribution`: calls and USD per model tier. */
@Injectable()
export class GetTierDistributionHandler extends ServedHandler<typeof getTierDistribution> {
  constructor(
    private readonly queries: ReportingQueries,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(getTierDistribution, nc);
  }

  async handle(request: z.output<typeof getTierDistribution.request>) {
    return this.queries.tierDistribution(request);
  }
}
