import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@headspace/platform';
import { ClaimTaskHandler } from './claim-task/claim-task.handler';
import { CompleteTaskHandler } from './complete-task/complete-task.handler';
import { CreateTasksHandler } from './create-tasks/create-tasks.handler';
import { HeartbeatTaskHandler } from './heartbeat-task/heartbeat-task.handler';
import { LeaseSweeper } from './lease-sweeper';
import { ListTasksHandler } from './list-tasks/list-tasks.handler';
import { ReleaseTaskHandler } from './release-task/release-task.handler';
import { TaskBoardProjection } from './task-board.projection';
import { TASK_SETTINGS, taskSettings } from './task-streams';

/** Tasks: the team's task list — creation with dependencies, atomic claims as leases, completion, the board. */
@Module({
  providers: [
    { provide: TASK_SETTINGS, inject: [APP_CONFIG], useFactory: (config: Record<string, unknown>) => taskSettings(config) },
    TaskBoardProjection, LeaseSweeper],
  controllers: [CreateTasksHandler, ClaimTaskHandler, HeartbeatTaskHandler, CompleteTaskHandler, ReleaseTaskHandler, ListTasksHandler],
})
export class TasksModule {}
