import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { transitionGroup } from '@headspace/contracts';
import type { RequestContext } from '@headspace/messaging';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { GroupRow } from '../group.entity';
import { GroupLifecycle } from '../group-lifecycle.service';
import type { GroupCommand } from '../group.decider';

/**
 * `transition-group`: the operator dismisses (with a reason), escalates, resolves by hand,
 * reopens a group, or asks Leon to fix an escalated one. A resolution records the releases the
 * group was seen in so far, against which a later event is judged a regression.
 */
@Controller()
export class TransitionGroupHandler {
  constructor(
    private readonly lifecycle: GroupLifecycle,
    private readonly reads: ReadModel,
  ) {}

  @MessagePattern(transitionGroup)
  async handle(@Payload() r: z.output<typeof transitionGroup.request>, @Ctx() ctx: RequestContext) {
    const act = { by: r.actor, ...(r.reason ? { reason: r.reason } : {}), now: new Date().toISOString() };
    let command: GroupCommand;
    if (r.action === 'resolve') {
      const row = await this.reads.one(GroupRow, { groupId: r.groupId });
      command = { type: 'resolve', manual: true, releases: row?.releases ?? [], ...act };
    } else if (r.action === 'fix') {
      // Remediation starts the run when it sees a fix proposed by someone other than Leon (remediation/).
      command = { type: 'propose-fix', ...act };
    } else {
      command = { type: r.action, ...act };
    }
    const outcome = await this.lifecycle.run(r.groupId, command, ctx);
    const state = outcome.state.status === 'none' ? 'NEW' : outcome.state.status;
    return { groupId: r.groupId, state, streamVersion: outcome.streamVersion.toString() };
  }
}
