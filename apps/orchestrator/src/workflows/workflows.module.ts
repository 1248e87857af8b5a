import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@headspace/platform';
import type { AppConfig } from '../config';
import { RUN_SOURCE_POLICY, RunSourcePolicy } from '../runs/run-source.policy';
import { RunsModule } from '../runs/runs.module';
import { CancelWorkflowHandler } from './cancel-workflow/cancel-workflow.handler';
import { GetWorkflowHandler } from './get-workflow/get-workflow.handler';
import { ListWorkflowsHandler } from './list-workflows/list-workflows.handler';
import { StartWorkflowHandler } from './start-workflow/start-workflow.handler';
import { WorkflowProcess } from './workflow.process';
import { WorkflowsProjection } from './workflows.projection';

/**
 * Workflows (issue 24 scope 1, issue 25 scope 4): a DAG of steps, or a pipeline of stages, each an
 * ask, driven by a crash-safe process over the workflow's own stream (ADR 0050).
 */
@Module({
  imports: [RunsModule],
  providers: [
    WorkflowProcess,
    WorkflowsProjection,
    {
      provide: RUN_SOURCE_POLICY,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new RunSourcePolicy({ roots: config.HS_SOURCE_ROOTS, workspacesDir: config.HS_WORKSPACES_DIR }),
    },
  ],
  controllers: [StartWorkflowHandler, GetWorkflowHandler, ListWorkflowsHandler, CancelWorkflowHandler],
  exports: [WorkflowProcess, WorkflowsProjection],
})
export class WorkflowsModule {}
