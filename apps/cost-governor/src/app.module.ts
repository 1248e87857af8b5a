import { join } from 'node:path';
import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule, ReadModelModule } from '@headspace/platform';
import { BudgetRow } from './budgets/budget.entity';
import { BudgetsModule } from './budgets/budgets.module';
import { SERVICE, type AppConfig } from './config';
import { CostGovernorStoreModule } from './cost-governor-store.module';
import { PricesModule } from './prices/prices.module';
import { QuotaModule } from './quota/quota.module';
import { ReportingModule } from './reporting/reporting.module';
import { CacheStatRow, RateLimitRow, UsageLedgerRow } from './reporting/usage-ledger.entity';
import { RoutingModule } from './routing/routing.module';
import { UsageModule } from './usage/usage.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot({ service: SERVICE, config, publishEvents: true, migrationsDirs: [join(__dirname, 'migrations')] }),
        ReadModelModule.forEntities([BudgetRow, UsageLedgerRow, CacheStatRow, RateLimitRow]),
        CostGovernorStoreModule,
        PricesModule,
        RoutingModule,
        BudgetsModule,
        UsageModule,
        ReportingModule,
        QuotaModule,
      ],
    };
  }
}
