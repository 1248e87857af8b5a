import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { createTask, createTasks, taskListStreamId, taskStreamId } from '@headspace/contracts';
import { EventStore, handleCommand, idFromCommand } from '@headspace/event-store';
import type { RequestContext } from '@headspace/messaging';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { taskListDecider, type AddTasks, type NewTask, type TaskCreatedEvent, type TaskListEvent } from '../task-list.decider';
import { requireTeam, TASK_SETTINGS, type TaskSettings } from '../task-streams';

type NewTaskRequest = z.output<typeof createTasks.request>['tasks'][number];

/** The list's decision with each new task's `task.created`, which goes to the task's own stream. */
const creation = {
  ...taskListDecider,
  decide: (command: AddTasks, state: Parameters<typeof taskListDecider.decide>[1]): Array<TaskListEvent | TaskCreatedEvent> => {
    const decision = taskListDecider.decideCreation(command, state);
    return [...decision.list, ...decision.created];
  },
};

/**
 * `create-task` and `create-tasks`: creators of one team take the list stream's turn, so independent
 * creations never lose a version race (they are not conflicts) and a retried command id finds its
 * first result. Lock order (the deadlock-prevention rule): the list stream's advisory lock, then the
 * list stream row (compare-and-set at the version just read), then each new task stream
 * (`no-stream`) in stream-id order.
 */
@Controller()
export class CreateTasksHandler {
  constructor(
    private readonly store: EventStore,
    @Inject(TASK_SETTINGS) private readonly settings: TaskSettings,
  ) {}

  @MessagePattern(createTask)
  async createOne(@Payload() request: z.output<typeof createTask.request>, @Ctx() ctx: RequestContext) {
    const { team, ...task } = request;
    const result = await this.handle(team, [task], ctx, () => '');
    return { taskId: result.taskIds[0], streamVersion: result.streamVersion };
  }

  @MessagePattern(createTasks)
  createMany(@Payload() request: z.output<typeof createTasks.request>, @Ctx() ctx: RequestContext) {
    return this.handle(request.team, request.tasks, ctx, (i) => `tasks.${i}`);
  }

  async handle(team: string, tasks: NewTaskRequest[], ctx: RequestContext, fieldPrefix: (index: number) => string) {
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
    const command = { type: 'add-tasks' as const, team, tasks: newTasks, now: new Date().toISOString(), fieldPrefix };
    const outcome = await handleCommand(this.store, creation, taskListStreamId(team), command, { ...ctx, commandId }, {
      turn: true,
      before: ({ client }) => requireTeam(this.store, team, client),
      route: (event) => (event.type === 'task.created' ? { streamId: taskStreamId(team, event.data.taskId), expected: 'no-stream' } : undefined),
    });
    return { taskIds: newTasks.map((t) => t.taskId), streamVersion: outcome.streamVersion.toString() };
  }
}
