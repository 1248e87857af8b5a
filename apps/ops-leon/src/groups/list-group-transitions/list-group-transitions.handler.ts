import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, listGroupTransitions } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { GroupRow, TransitionRow } from '../group.entity';
import { groupTransition } from '../group-views';

/** `list-group-transitions`: a group's timeline, oldest first: opened, every transition, spikes. */
@Controller()
export class ListGroupTransitionsHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(listGroupTransitions)
  async handle(@Payload() { groupId }: z.output<typeof listGroupTransitions.request>) {
    if (!(await this.reads.one(GroupRow, { groupId }))) throw new HeadspaceError(ErrorCodes.opsGroupNotFound, `No exception group ${groupId}`, { field: 'groupId' });
    const rows = await this.reads.rows(TransitionRow, { groupId }, { orderBy: [{ seq: 'asc' }], limit: 1_000 });
    return { groupId, transitions: rows.map(groupTransition) };
  }
}
