import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { heartbeatTask, taskStreamId } from '@headspace/contracts';
import { EventStore, handleCommand } from '@headspace/event-store';
import { serveRequests, type RequestContext, type RequestServer } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import { taskDecider } from '../task.decider';
import { taskMustExist } from '../task-streams';

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

  async handle(request: z.output<typeof heartbeatTask.request>, ctx: RequestContext) {
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
