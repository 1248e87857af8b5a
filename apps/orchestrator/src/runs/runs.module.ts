import { Module } from '@nestjs/common';
import { EventStore } from '@headspace/event-store';
import { APP_CONFIG } from '@headspace/platform';
import type { AppConfig } from '../config';
import { LlmBackendProvider } from '../sessions/ports/llm-backend.provider';
import { SessionSupervisor } from '../sessions/session-supervisor';
import { SessionsModule } from '../sessions/sessions.module';
import { RUN_SESSIONS, RUN_SETTINGS, type RunSettings } from './run-ports';
import { SupervisorRunSessions } from './supervisor-run-sessions.adapter';
import { AnswerRunHandler } from './answer-run/answer-run.handler';
import { GetRunHandler } from './get-run/get-run.handler';
import { RunReconciler } from './run-reconciler';
import { RunsProjection } from './runs.projection';
import { StartRunHandler } from './start-run/start-run.handler';

/** Runs: the reconciler, its projection and handlers, on the orchestrator's own agent sessions. */
@Module({
  imports: [SessionsModule],
  providers: [
    RunReconciler,
    RunsProjection,
    StartRunHandler,
    AnswerRunHandler,
    GetRunHandler,
    {
      provide: RUN_SESSIONS,
      inject: [SessionSupervisor, EventStore, LlmBackendProvider],
      useFactory: (supervisor: SessionSupervisor, store: EventStore, llm: LlmBackendProvider) => new SupervisorRunSessions(supervisor, store, llm.simulated),
    },
    {
      provide: RUN_SETTINGS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): RunSettings => ({ workspacesDir: config.HS_WORKSPACES_DIR, sweepMs: config.RUN_SWEEP_MS }),
    },
  ],
  exports: [RunReconciler, StartRunHandler],
})
export class RunsModule {}
