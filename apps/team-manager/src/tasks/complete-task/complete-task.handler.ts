import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { completeTask, taskStreamId } from '@headspace/contracts';
import { EventStore, handleCommand } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { taskDecider } from '../task.decider';
import { taskMustExist } from '../task-streams';

/**
 * `complete-task`: the owner marks its task done. Dependents unblock through it: claims read the
 * dependency streams (at once), the board removes the task from their `blockedBy` (projection).
 */
@Controller()
export class CompleteTaskHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(completeTask)
  async handle(@Payload() request: z.output<typeof completeTask.request>, @Ctx() ctx: RequestContext) {
    const command = { type: 'complete' as const, owner: request.owner, ...(request.result === undefined ? {} : { result: request.result }), now: new Date().toISOString() };
    const { streamVersion } = await handleCommand(this.store, taskDecider, taskStreamId(request.team, request.taskId), command, ctx, { before: taskMustExist(request) });
    return { taskId: request.taskId, streamVersion: streamVersion.toString() };
  }
}
