import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { heartbeatTask } from '@headspace/contracts';
import { EventStore, withRetry } from '@headspace/event-store';
import { serveRequests, type RequestContext, type RequestServer } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { taskDecider } from '../task.decider';
import { TASK_RETRY, eventMetadata, loadTask, taskNotFound } from '../task-streams';

/** `heartbeat-task`: the owner extends its lease (and may update the active form). */
@Injectable()
export class HeartbeatTaskHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: RequestServer;

  constructor(
    private readonly store: EventStore,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  onApplicationBootstrap(): void {
    this.server = serveRequests(this.nc, heartbeatTask, (request, ctx) => this.handle(request, ctx));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }

  handle(request: z.output<typeof heartbeatTask.request>, ctx: RequestContext) {
    const commandId = ctx.commandId ?? randomUUID();
    return withRetry(async () => {
      const task = await loadTask(this.store, request.team, request.taskId, commandId);
      const prior = task.prior.find((e) => e.type === 'task.heartbeat');
      if (prior && prior.type === 'task.heartbeat') {
        return { taskId: request.taskId, leaseExpiresAt: prior.data.leaseExpiresAt, streamVersion: prior.streamVersion.toString() };
      }
      if (!task.state.exists) throw taskNotFound(request.team, request.taskId);
      const events = taskDecider.decide(
        {
          type: 'heartbeat',
          owner: request.owner,
          ...(request.activeForm === undefined ? {} : { activeForm: request.activeForm }),
          ...(request.leaseMs === undefined ? {} : { leaseMs: request.leaseMs }),
          now: new Date().toISOString(),
        },
        task.state,
      );
      const result = await this.store.append(task.streamId, events, { expected: task.version, commandId, metadata: eventMetadata(ctx, commandId) });
      const beat = events[0];
      if (beat.type !== 'task.heartbeat') throw new Error('heartbeat decided something else');
      return { taskId: request.taskId, leaseExpiresAt: beat.data.leaseExpiresAt, streamVersion: result.nextExpectedVersion.toString() };
    }, TASK_RETRY);
  }
}
