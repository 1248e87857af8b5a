import { Module } from '@nestjs/common';
import { AnswerRunHandler } from './answer-run/answer-run.handler';
import { GetRunHandler } from './get-run/get-run.handler';
import { RunReconciler } from './run-reconciler';
import { RunsProjection } from './runs.projection';
import { StartRunHandler } from './start-run/start-run.handler';

/**
 * Runs: needs RUN_SESSIONS (the session supervisor behind a port) and RUN_SETTINGS from the
 * importing module, and the orchestrator's EventStore (global).
 */
@Module({
  providers: [RunReconciler, RunsProjection, StartRunHandler, AnswerRunHandler, GetRunHandler],
  exports: [RunReconciler, StartRunHandler],
})
export class RunsModule {}
