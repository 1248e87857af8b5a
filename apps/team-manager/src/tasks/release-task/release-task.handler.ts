import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { releaseTask, taskStreamId } from '@headspace/contracts';
import { EventStore, handleCommand } from '@headspace/event-store';
import { serveRequests, type RequestContext, type RequestServer } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { taskDecider } from '../task.decider';
import { taskMustExist } from '../task-streams';

/**
 * `release-task`: the owner gives up — a failed attempt, with the reason kept on the board so the
 * next claimer does not repeat the approach. The last allowed attempt escalates the task instead.
 */
@Injectable()
export class ReleaseTaskHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: RequestServer;

  constructor(
    private readonly store: EventStore,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  onApplicationBootstrap(): void {
    this.server = serveRequests(this.nc, releaseTask, (request, ctx) => this.handle(request, ctx));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }

  async handle(request: z.output<typeof releaseTask.request>, ctx: RequestContext) {
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
