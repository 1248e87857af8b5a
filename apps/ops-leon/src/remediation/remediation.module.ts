import { Module } from '@nestjs/common';
import { GroupsModule } from '../groups/groups.module';
import { ModelModule } from '../model/model.module';
import { FixApprovalConsumer } from './on-approval-decided/fix-approval.consumer';
import { FixRunConsumer } from './on-fix-run/fix-run.consumer';
import { RemediationGroupConsumer } from './on-group-event/remediation-group.consumer';
import { RemediationSteps } from './remediation-steps';
import { RemediationTable } from './remediation-table';
import { RemediationWorker } from './remediation.worker';

/**
 * Leon's remediation (issue 20 scope 5, ADR 0024): a process manager from a triaged group to a
 * resolved one — the escalation ladder (Gavin → Robbo → operator), the fix approval or a trusted
 * project's skip, the orchestrator's fix run, the commit, the verification window.
 */
@Module({
  imports: [GroupsModule, ModelModule],
  providers: [RemediationTable, RemediationSteps, RemediationWorker],
  controllers: [RemediationGroupConsumer, FixApprovalConsumer, FixRunConsumer],
})
export class RemediationModule {}
