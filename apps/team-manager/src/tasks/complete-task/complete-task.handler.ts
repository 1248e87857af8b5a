import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { completeTask, taskStreamId } from '@headspace/contracts';
import { EventStore, handleCommand } from '@headspace/event-store';
import { serveRequests, type RequestContext, type RequestServer } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { taskDecider } from '../task.decider';
import { taskMustExist } from '../task-streams';

/**
 * `complete-task`: the owner marks its task done. Dependents unblock through it: claims read the
 * dependency streams (at once), the board removes the task from their `blockedBy` (projection).
 */
@Injectable()
export class CompleteTaskHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: RequestServer;

  constructor(
    private readonly store: EventStore,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  onApplicationBootstrap(): void {
    this.server = serveRequests(this.nc, completeTask, (request, ctx) => this.handle(request, ctx));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }

  async handle(request: z.output<typeof completeTask.request>, ctx: RequestContext) {
    const command = { type: 'complete' as const, owner: request.owner, ...(request.result === undefined ? {} : { result: request.result }), now: new Date().toISOString() };
    const { streamVersion } = await handleCommand(this.store, taskDecider, taskStreamId(request.team, request.taskId), command, ctx, { before: taskMustExist(request) });
    return { taskId: request.taskId, streamVersion: streamVersion.toString() };
  }
}
