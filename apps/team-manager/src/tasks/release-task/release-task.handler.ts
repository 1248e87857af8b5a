import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { releaseTask } from '@headspace/contracts';
import { EventStore, withRetry } from '@headspace/event-store';
import { serveRequests, type RequestContext, type RequestServer } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { taskDecider } from '../task.decider';
import { TASK_RETRY, eventMetadata, loadTask, taskNotFound } from '../task-streams';

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

  handle(request: z.output<typeof releaseTask.request>, ctx: RequestContext) {
    const commandId = ctx.commandId ?? randomUUID();
    return withRetry(async () => {
      const task = await loadTask(this.store, request.team, request.taskId, commandId);
      const prior = task.prior.find((e) => e.type === 'task.released');
      if (prior && prior.type === 'task.released') {
        const last = task.prior[task.prior.length - 1];
        return { taskId: request.taskId, attempt: prior.data.attempt, escalated: last.type === 'task.escalated', streamVersion: last.streamVersion.toString() };
      }
      if (!task.state.exists) throw taskNotFound(request.team, request.taskId);
      const events = taskDecider.decide(
        { type: 'release', owner: request.owner, reason: request.reason, now: new Date().toISOString() },
        task.state,
      );
      const result = await this.store.append(task.streamId, events, { expected: task.version, commandId, metadata: eventMetadata(ctx, commandId) });
      const released = events[0];
      return {
        taskId: request.taskId,
        attempt: released.type === 'task.released' ? released.data.attempt : 0,
        escalated: events.some((e) => e.type === 'task.escalated'),
        streamVersion: result.nextExpectedVersion.toString(),
      };
    }, TASK_RETRY);
  }
}
