import { Module } from '@nestjs/common';
import { GroupsModule } from '../groups/groups.module';
import { ModelModule } from '../model/model.module';
import { GroupFacts } from './group-facts';
import { TriageConsumer } from './triage.consumer';
import { TriageWorker } from './triage.worker';

/**
 * Leon's triage (issue 20 scope 3, ADR 0023): a consumer starts the analysis of every opened,
 * reopened or regressed group; the worker triages it by rules, then the light and deep models
 * under the governor's budgets, and records the verdict (dismissing noise). Remediation takes it
 * from `group.triaged`.
 */
@Module({
  imports: [GroupsModule, ModelModule],
  providers: [GroupFacts, TriageWorker],
  controllers: [TriageConsumer],
})
export class TriageModule {}
