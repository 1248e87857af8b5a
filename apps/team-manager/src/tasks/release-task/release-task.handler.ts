import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { releaseTask, taskStreamId } from '@headspace/contracts';
import { EventStore, handleCommand } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { taskDecider } from '../task.decider';
import { taskMustExist } from '../task-streams';

/**
 * `release-task`: the owner gives up — a failed attempt, with the reason kept on the board so the
 * next claimer does not repeat the approach. The last allowed attempt escalates the task instead.
 */
@Controller()
export class ReleaseTaskHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(releaseTask)
  async handle(@Payload() request: z.output<typeof releaseTask.request>, @Ctx() ctx: RequestContext) {
    const command = { type: 'release' as const, owner: request.owner, reason: request.reason, now: new Date().toISOString() };
    const { events, streamVersion } = await handleCommand(this.store, taskDecider, taskStreamId(request.team, request.taskId), command, ctx, { before: taskMustExist(request) });
    const released = events[0];
    return {
      taskId: request.taskId,
      attempt: released.type === 'task.released' ? released.data.attempt : 0,
      escalated: events.some((e) => e.type === 'task.escalated'),
      streamVersion: streamVersion.toString(),
    };
  }
}
