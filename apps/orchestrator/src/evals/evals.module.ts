import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@headspace/platform';
import { AgentsModule } from '../agents/agents.module';
import type { AppConfig } from '../config';
import { RUN_SOURCE_POLICY, RunSourcePolicy } from '../runs/run-source.policy';
import { SessionSandbox } from '../sessions/sandbox/session-sandbox.service';
import { SessionsModule } from '../sessions/sessions.module';
import { CompareEvalRunsHandler } from './compare-eval-runs/compare-eval-runs.handler';
import { EVAL_COMMAND_GRADER, EvalRunProcess } from './eval-run.process';
import { EvalRunsProjection } from './eval-runs.projection';
import { GetEvalRunHandler } from './get-eval-run/get-eval-run.handler';
import { CommandGraderRunner } from './graders/command-grader';
import { ListEvalRunsHandler } from './list-eval-runs/list-eval-runs.handler';
import { StartEvalRunHandler } from './start-eval-run/start-eval-run.handler';

/**
 * Evaluations (issue 25 scope 6, ADR 0049): each task of a suite runs as an ask; its graders run in
 * the ask's result checkout — test commands in the team's sandbox with a fix run's time limit,
 * rubric judges on the model backend through the cost governor.
 */
@Module({
  imports: [AgentsModule, SessionsModule],
  providers: [
    EvalRunProcess,
    EvalRunsProjection,
    {
      provide: RUN_SOURCE_POLICY,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new RunSourcePolicy({ roots: config.HS_SOURCE_ROOTS, workspacesDir: config.HS_WORKSPACES_DIR }),
    },
    {
      provide: EVAL_COMMAND_GRADER,
      inject: [SessionSandbox, APP_CONFIG],
      useFactory: (sandbox: SessionSandbox, config: AppConfig) => new CommandGraderRunner((who, dir) => sandbox.forSession(who, dir), config.HS_FIX_CHECK_TIMEOUT_MS),
    },
  ],
  controllers: [StartEvalRunHandler, GetEvalRunHandler, ListEvalRunsHandler, CompareEvalRunsHandler],
  exports: [EvalRunProcess, EvalRunsProjection],
})
export class EvalsModule {}
