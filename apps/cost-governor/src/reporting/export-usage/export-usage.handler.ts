import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { exportUsage } from '@headspace/contracts';
import type { z } from 'zod';
import { ReportingQueries } from '../reporting.queries';

/** `export-usage`: ccusage-like daily rows (date, models, tokens, cost). */
@Controller()
export class ExportUsageHandler {
  constructor(
    private readonly queries: ReportingQueries,
  ) {}

  @MessagePattern(exportUsage)
  async handle(request: z.output<typeof exportUsage.request>) {
    return this.queries.exportRows(request);
  }
}
