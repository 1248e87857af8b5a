import { Inject, Injectable } from '@nestjs/common';
import { getSpend } from '@headspace/contracts';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { ServedHandler } from '@headspace/platform';
import { ReportingQueries } from '../reporting.queries';

/** `get-spend`: spend grouped by any attribution key (or model, tier, day) over a period. */
@Injectable()
export class GetSpendHandler extends ServedHandler<typeof getSpend> {
  constructor(
    private readonly queries: ReportingQueries,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(getSpend, nc);
  }

  async handle(request: z.output<typeof getSpend.request>) {
    const { groupBy, ...filters } = request;
    return this.queries.spend(filters, groupBy);
  }
}
