import { Controller } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { groupEvents, groupFixProposed, groupTriaged, type EventData } from '@headspace/contracts';
import type { ConsumedEvent, EventContext } from '@headspace/messaging';
import { RemediationTable } from '../remediation-table';
import { LEON } from '../remediation-steps';

const GROUP_EVENTS = groupEvents.filter((d) => d.category === 'group');
type Triaged = EventData<typeof groupTriaged>;
type Proposed = EventData<typeof groupFixProposed>;

/**
 * Leon's own group events, in log order, through a durable consumer: `group.triaged` (not noise:
 * triage dismissed that) schedules the remediation's first step; a fix proposed by the operator
 * (transition-group `fix` on an escalated group) schedules its run. Only the table is written here,
 * in the inbox transaction: the worker does the rest.
 */
@Controller()
export class RemediationGroupConsumer {
  static readonly durable = 'ops-leon-remediation';

  constructor(private readonly table: RemediationTable) {}

  @EventPattern(GROUP_EVENTS, {
    durable: RemediationGroupConsumer.durable,
    // One filter for every group event (nats-server < 2.10 takes one filter per consumer).
    filterSubject: 'hs.evt.ops-leon.group.>',
    backoffMs: [250, 1_000, 5_000, 15_000],
  })
  async apply(@Payload() event: ConsumedEvent<unknown>, @Ctx() { tx }: EventContext): Promise<void> {
    if (event.type === groupTriaged.type) {
      const d = event.data as Triaged;
      if (d.severity === 'noise') return;
      const triage = { severity: d.severity, domain: d.domain, persona: d.persona, autoFixable: d.autoFixable, complex: d.complex ?? false, hypothesis: d.hypothesis, approach: d.approach ?? '' };
      // A regressed group triaged again starts over: a new approval, a new run (its number goes on).
      await this.table.schedule(tx, {
        groupId: d.groupId,
        project: d.project,
        step: 'triage',
        stepId: event.eventId,
        columns: { triage, approval_id: null, approval_decision: null, run_id: null, regression_test: null, after_fix_ok: null, fix_release: null, committed_at: null, window_seconds: null },
      });
      return;
    }
    if (event.type === groupFixProposed.type) {
      const d = event.data as Proposed;
      if (d.by === LEON || d.approvalId || d.approvalSkipped) return;
      await this.table.schedule(tx, { groupId: d.groupId, project: d.project, step: 'start-fix', stepId: event.eventId, input: { approach: d.approach ?? d.reason ?? '' }, columns: { run_id: null } });
    }
  }
}
