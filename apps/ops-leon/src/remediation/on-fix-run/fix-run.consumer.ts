import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { runCompleted, runEvents, runFailed, runRegressionChecked, type EventData } from '@headspace/contracts';
import type { ConsumedEvent, EventContext } from '@headspace/messaging';
import { isFixRunId } from '../remediation.policy';
import { RemediationTable } from '../remediation-table';

type Checked = EventData<typeof runRegressionChecked>;
type Completed = EventData<typeof runCompleted>;
type Failed = EventData<typeof runFailed>;
const FOLLOWED = new Set<string>([runRegressionChecked.type, runCompleted.type, runFailed.type]);

/**
 * The orchestrator's run events, through a durable consumer; only a group's current fix run
 * (`fix-…`, the run id on its remediation row) matters. The regression checks are kept on the row
 * (the before-fix test file, whether the after-fix check passed); the run's end schedules the step
 * that commits the fix or escalates it.
 */
@Controller()
export class FixRunConsumer {
  static readonly durable = 'ops-leon-fix-runs';

  constructor(private readonly table: RemediationTable) {}

  @EventPattern(runEvents, {
    durable: FixRunConsumer.durable,
    // One filter for every run event (nats-server < 2.10 takes one filter per consumer); the others pass through.
    filterSubject: 'hs.evt.orchestrator.run.>',
    backoffMs: [250, 1_000, 5_000, 15_000],
  })
  async apply(@Payload() event: ConsumedEvent<{ runId: string }>, @Ctx() { tx }: EventContext): Promise<void> {
    const runId = event.data.runId;
    if (!isFixRunId(runId)) return;
    if (!FOLLOWED.has(event.type)) return;
    const row = await this.table.by('run_id', runId, tx);
    if (!row) return; // not a group's current fix run (a superseded one, or another Leon's)
    if (event.type === runRegressionChecked.type) {
      const d = event.data as unknown as Checked;
      if (d.stage === 'before-fix' && d.ok && d.testFiles[0]) await this.table.set(row.groupId, { regression_test: d.testFiles[0] }, tx);
      if (d.stage === 'after-fix') await this.table.set(row.groupId, { after_fix_ok: d.ok }, tx);
      return;
    }
    const ended =
      event.type === runCompleted.type
        ? { type: runCompleted.type, runId, verdict: (event.data as unknown as Completed).verdict, headCommit: (event.data as unknown as Completed).headCommit }
        : { type: runFailed.type, runId, reason: (event.data as unknown as Failed).reason };
    await this.table.schedule(tx, { groupId: row.groupId, project: row.project, step: 'run-ended', stepId: event.eventId, input: ended });
  }
}
