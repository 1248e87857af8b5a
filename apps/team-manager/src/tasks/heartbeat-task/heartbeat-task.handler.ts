import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { heartbeatTask, taskStreamId } from '@headspace/contracts';
import { EventStore, handleCommand } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import type { z } from 'zod';
import { taskDecider } from '../task.decider';
import { taskMustExist } from '../task-streams';

/** `heartbeat-task`: the owner extends its lease (and may update the active form). */
@Controller()
export class HeartbeatTaskHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(heartbeatTask)
  async handle(@Payload() request: z.output<typeof heartbeatTask.request>, @Ctx() ctx: RequestContext) {
    const command = {
      type: 'heartbeat' as const,
      owner: request.owner,
      ...(request.activeForm === undefined ? {} : { activeForm: request.activeForm }),
      ...(request.leaseMs === undefined ? {} : { leaseMs: request.leaseMs }),
      now: new Date().toISOString(),
    };
    const { events, streamVersion } = await handleCommand(this.store, taskDecider, taskStreamId(request.team, request.taskId), command, ctx, { before: taskMustExist(request) });
    const beat = events[0];
    if (beat?.type !== 'task.heartbeat') throw new Error('heartbeat decided something else');
    return { taskId: request.taskId, leaseExpiresAt: beat.data.leaseExpiresAt, streamVersion: streamVersion.toString() };
  }
}
