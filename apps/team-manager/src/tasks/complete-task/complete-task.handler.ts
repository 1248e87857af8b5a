import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { completeTask } from '@headspace/contracts';
import { EventStore, withRetry } from '@headspace/event-store';
import { serveRequests, type RequestContext, type RequestServer } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { taskDecider } from '../task.decider';
import { TASK_RETRY, eventMetadata, loadTask, taskNotFound } from '../task-streams';

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

  handle(request: z.output<typeof completeTask.request>, ctx: RequestContext) {
    const commandId = ctx.commandId ?? randomUUID();
    return withRetry(async () => {
      const task = await loadTask(this.store, request.team, request.taskId, commandId);
      const prior = task.prior.find((e) => e.type === 'task.completed');
      if (prior) return { taskId: request.taskId, streamVersion: prior.streamVersion.toString() };
      if (!task.state.exists) throw taskNotFound(request.team, request.taskId);
      const events = taskDecider.decide(
        { type: 'complete', owner: request.owner, ...(request.result === undefined ? {} : { result: request.result }), now: new Date().toISOString() },
        task.state,
      );
      const result = await this.store.append(task.streamId, events, { expected: task.version, commandId, metadata: eventMetadata(ctx, commandId) });
      return { taskId: request.taskId, streamVersion: result.nextExpectedVersion.toString() };
    }, TASK_RETRY);
  }
}
