import { Module } from '@nestjs/common';
import { PricesModule } from '../prices/prices.module';
import { ApprovalDecidedConsumer } from './approval-bridge/approval-decided.consumer';
import { BudgetApprovalProcess } from './approval-bridge/budget-approval.process';
import { BudgetCommands } from './budget-commands.service';
import { BudgetRepository } from './budget.repository';
import { BudgetGroupCommit } from './budget-group-commit';
import { BudgetsProjection } from './budgets.projection';
import { GetBudgetHandler } from './get-budget/get-budget.handler';
import { ListBudgetsHandler } from './list-budgets/list-budgets.handler';
import { MaySpendHandler } from './may-spend/may-spend.handler';
import { ReleaseReservationHandler } from './release-reservation/release-reservation.handler';
import { ReservationExpirySweeper } from './reservation-sweeper/reservation-expiry.sweeper';
import { ResolveBudgetPauseHandler } from './resolve-budget-pause/resolve-budget-pause.handler';
import { SetBudgetHandler } from './set-budget/set-budget.handler';

/** Budgets: the aggregates, may-spend reservations, thresholds, pauses and their approvals. */
@Module({
  imports: [PricesModule],
  providers: [
    BudgetRepository,
    BudgetGroupCommit,
    BudgetCommands,
    BudgetsProjection,
    ReservationExpirySweeper,
    BudgetApprovalProcess,
  ],
  controllers: [SetBudgetHandler, MaySpendHandler, ResolveBudgetPauseHandler, GetBudgetHandler, ListBudgetsHandler, ReleaseReservationHandler, ApprovalDecidedConsumer],
  exports: [BudgetRepository, BudgetGroupCommit, BudgetCommands],
})
export class BudgetsModule {}
