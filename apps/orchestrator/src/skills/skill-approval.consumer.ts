import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { approvalDecided, type EventData } from '@headspace/contracts';
import type { ConsumedEvent } from '@headspace/messaging';
import { SkillEvolution } from './skill-evolution.service';

/**
 * The team-manager's `approval.decided` for `skill-file-update` approvals, through a durable
 * JetStream consumer: approve → the approval's lines merged into the persona's skill.md and a
 * `skill.updated` recorded (its id derived from the approval: a redelivery merges nothing twice and
 * records once); deny (an answer or the timeout's default) → nothing changes.
 */
@Controller()
export class SkillApprovalConsumer {
  static readonly durable = 'orchestrator-skill-approvals';

  constructor(private readonly evolution: SkillEvolution) {}

  @EventPattern(approvalDecided, { durable: SkillApprovalConsumer.durable, backoffMs: [250, 1_000, 5_000, 15_000] })
  async apply(@Payload() event: ConsumedEvent<EventData<typeof approvalDecided>>): Promise<void> {
    const d = event.data;
    if (d.kind !== 'skill-file-update' || d.decision !== 'approve') return;
    await this.evolution.applyApproved({ approvalId: d.approvalId, team: d.team, decidedBy: d.decidedBy });
  }
}
