import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, getGroup, HeadspaceError } from '@headspace/contracts';
import { APP_CONFIG, ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import type { AppConfig } from '../../config';
import { GroupRow, SampleRow, TransitionRow } from '../group.entity';
import { groupSample, groupSummary, groupTransition } from '../group-views';

/** `get-group`: one group with its kept events (newest first, frames and stack) and its timeline (oldest first). */
@Controller()
export class GetGroupHandler {
  constructor(
    private readonly reads: ReadModel,
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'HS_OPS_SAMPLE_EVENTS'>,
  ) {}

  @MessagePattern(getGroup)
  async handle(@Payload() { groupId }: z.output<typeof getGroup.request>) {
    const row = await this.reads.one(GroupRow, { groupId });
    if (!row) throw new HeadspaceError(ErrorCodes.opsGroupNotFound, `No exception group ${groupId}`, { field: 'groupId' });
    const [samples, transitions] = await Promise.all([
      this.reads.rows(SampleRow, { groupId }, { orderBy: [{ seq: 'desc' }], limit: Math.max(this.config.HS_OPS_SAMPLE_EVENTS, 1) }),
      this.reads.rows(TransitionRow, { groupId }, { orderBy: [{ seq: 'asc' }], limit: 1_000 }),
    ]);
    return { ...groupSummary(row), samples: samples.map(groupSample), transitions: transitions.map(groupTransition) };
  }
}
