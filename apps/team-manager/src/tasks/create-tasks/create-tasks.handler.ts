import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { createTask, createTasks, taskListStreamId, taskStreamId } from '@headspace/contracts';
import { EventStore, foldEvents, idFromCommand, priorResultIn, withRetry, type RecordedEvent } from '@headspace/event-store';
import { serveRequests, type RequestContext, type RequestServer } from '@headspace/messaging';
import { NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { taskListDecider, type NewTask, type TaskListEvent } from '../task-list.decider';
import { KeyedQueue } from '../../teams/shared/keyed-queue';
import { inStreamTurn } from '../../teams/shared/stream-turn';
import { TASK_RETRY, eventMetadata, requireTeam, TASK_SETTINGS, type TaskSettings, } from '../task-streams';

type NewTaskRequest = z.output<typeof createTasks.request>['tasks'][number];

/**
 * `create-task` and `create-tasks`: creators of one team are serialised, so independent creations
 * never lose a version race (they are not conflicts) and a retried command id finds its first result:
 * in this process by a per-team queue (one connection per team waits, not one per request), across
 * replicas by the list stream's turn (`inStreamTurn`): the list is read, folded, decided and appended
 * inside that one short transaction. Lock order (the deadlock-prevention rule): the list stream's
 * advisory lock, then the list stream row (compare-and-set at the version just read), then each new
 * task stream (`no-stream`) in task-id order.
 */
@Injectable()
export class CreateTasksHandler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private servers: RequestServer[] = [];
  private readonly queue = new KeyedQueue();

  constructor(
    private readonly store: EventStore,
    @Inject(TASK_SETTINGS) private readonly settings: TaskSettings,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  onApplicationBootstrap(): void {
    this.servers = [
      serveRequests(this.nc, createTask, async (request, ctx) => {
        const { team, ...task } = request;
        const result = await this.handle(team, [task], ctx, () => '');
        return { taskId: result.taskIds[0], streamVersion: result.streamVersion };
      }),
      serveRequests(this.nc, createTasks, (request, ctx) => this.handle(request.team, request.tasks, ctx, (i) => `tasks.${i}`)),
    ];
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.stop()));
  }

  handle(team: string, tasks: NewTaskRequest[], ctx: RequestContext, fieldPrefix: (index: number) => string) {
    const commandId = ctx.commandId ?? randomUUID();
    const newTasks: NewTask[] = tasks.map((t, i) => ({
      taskId: t.id ?? idFromCommand(commandId, `task:${team}:${i}`),
      subject: t.subject,
      description: t.description,
      ...(t.activeForm === undefined ? {} : { activeForm: t.activeForm }),
      dependsOn: t.dependsOn,
      metadata: t.metadata,
      files: t.files,
      maxAttempts: t.maxAttempts ?? this.settings.TASK_MAX_ATTEMPTS,
    }));
    return this.queue.run(team, () => withRetry(() => this.attempt(team, newTasks, ctx, commandId, fieldPrefix), TASK_RETRY));
  }

  private async attempt(team: string, tasks: NewTask[], ctx: RequestContext, commandId: string, fieldPrefix: (index: number) => string) {
    const listId = taskListStreamId(team);
    const taskIds = tasks.map((t) => t.taskId);
    await requireTeam(this.store, team);
    const metadata = eventMetadata(ctx, commandId);
    return inStreamTurn(this.store, listId, async (client) => {
      const history = (await this.store.readStream(listId, { client })) as Array<RecordedEvent & TaskListEvent>;
      const prior = priorResultIn(history, commandId);
      if (prior) return { taskIds, streamVersion: prior.nextExpectedVersion.toString() };
      const decision = taskListDecider.decideCreation(
        { type: 'add-tasks', team, tasks, now: new Date().toISOString(), fieldPrefix },
        foldEvents(taskListDecider, history),
      );
      const result = await this.store.append(listId, decision.list, {
        expected: history.length ? history[history.length - 1].streamVersion : 'no-stream',
        commandId,
        metadata,
        client,
      });
      const created = [...decision.created].sort((a, b) => (a.data.taskId < b.data.taskId ? -1 : a.data.taskId > b.data.taskId ? 1 : 0));
      for (const event of created) {
        await this.store.append(taskStreamId(team, event.data.taskId), [event], { expected: 'no-stream', commandId, metadata, client });
      }
      return { taskIds, streamVersion: result.nextExpectedVersion.toString() };
    });
  }
}
