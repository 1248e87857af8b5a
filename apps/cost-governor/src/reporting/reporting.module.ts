import { Module } from '@nestjs/common';
import { PricesModule } from '../prices/prices.module';
import { ExportUsageHandler } from './export-usage/export-usage.handler';
import { GetCacheEconomicsHandler } from './get-cache-economics/get-cache-economics.handler';
import { GetSpendHandler } from './get-spend/get-spend.handler';
import { GetTaskCostHandler } from './get-task-cost/get-task-cost.handler';
import { GetTierDistributionHandler } from './get-tier-distribution/get-tier-distribution.handler';
import { ReportingQueries } from './reporting.queries';
import { SpendProjection } from './spend.projection';
import { UsageMonitorProcess } from './usage-monitor.process';

/** The usage ledger projection, reporting queries, cache and quota alerts. */
@Module({
  imports: [PricesModule],
  providers: [
    SpendProjection,
    UsageMonitorProcess,
    ReportingQueries,
  ],
  controllers: [GetSpendHandler, GetTaskCostHandler, GetTierDistributionHandler, ExportUsageHandler, GetCacheEconomicsHandler],
})
export class ReportingModule {}
