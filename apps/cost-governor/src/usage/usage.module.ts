import { Module } from '@nestjs/common';
import { BudgetsModule } from '../budgets/budgets.module';
import { PricesModule } from '../prices/prices.module';
import { RecordUsageHandler } from './record-usage/record-usage.handler';

/** The usage ledger: record-usage prices a call and settles it on its budgets. */
@Module({ imports: [PricesModule, BudgetsModule], controllers: [RecordUsageHandler] })
export class UsageModule {}
