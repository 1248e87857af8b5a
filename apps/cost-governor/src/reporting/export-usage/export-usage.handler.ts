import { Inject, Injectable } from '@nestjs/common';
import { exportUsage } from '@headspace/contracts';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { ServedHandler } from '@headspace/platform';
import { ReportingQueries } from '../reporting.queries';

/** `export-usage`: ccusage-like daily rows (date, models, tokens, cost). */
@Injectable()
export class ExportUsageHandler extends ServedHandler<typeof exportUsage> {
  constructor(
    private readonly queries: ReportingQueries,
    @Inject(NATS_CONNECTION) nc: NatsConnection,
  ) {
    super(exportUsage, nc);
  }

  async handle(request: z.output<typeof exportUsage.request>) {
    return this.queries.exportRows(request);
  }
}
