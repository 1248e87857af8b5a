import { Module } from '@nestjs/common';
import { APP_CONFIG, NATS_CONNECTION } from '@headspace/platform';
import type { NatsConnection } from '@nats-io/nats-core';
import { AgentsModule } from '../agents/agents.module';
import type { AppConfig } from '../config';
import { LlmBackendProvider } from '../sessions/ports/llm-backend.provider';
import { SessionSandbox } from '../sessions/sandbox/session-sandbox.service';
import { SessionSupervisor } from '../sessions/session-supervisor';
import { SessionsModule } from '../sessions/sessions.module';
import { AnswerRunHandler } from './answer-run/answer-run.handler';
import { SandboxedRegressionCheck } from './fix-run/regression-check';
import { GetRunHandler } from './get-run/get-run.handler';
import { GetRunDiffHandler } from './get-run-diff/get-run-diff.handler';
import { GitRunWorkspace } from './git-run-workspace';
import { ListRunsHandler } from './list-runs/list-runs.handler';
import { RUN_CHECKS, RUN_SESSIONS, RUN_SETTINGS, RUN_WORKSPACE, type RunSettings, type RunWorkspacePort } from './run-ports';
import { RunProcess } from './run.process';
import { RUN_SOURCE_POLICY, RunSourcePolicy } from './run-source.policy';
import { RunsProjection } from './runs.projection';
import { StartRunHandler } from './start-run/start-run.handler';
import { SessionRuntimes } from './session-runtime';
import { SupervisorRunSessions } from './supervisor-run-sessions.adapter';

/**
 * Runs: the run process, its projection and the start/answer/get/list handlers, on the
 * orchestrator's own agent sessions (RUN_SESSIONS), a git workspace per run (RUN_WORKSPACE) and
 * fix runs' test commands in the agents' sandbox (RUN_CHECKS).
 */
@Module({
  imports: [SessionsModule, AgentsModule],
  providers: [
    RunProcess,
    RunsProjection,
    {
      provide: RUN_SESSIONS,
      inject: [SessionSupervisor, LlmBackendProvider, NATS_CONNECTION],
      useFactory: (supervisor: SessionSupervisor, llm: LlmBackendProvider, nc: NatsConnection) => {
        const runtimes = new SessionRuntimes(nc);
        return new SupervisorRunSessions(supervisor, llm.simulated, (s) => runtimes.of(s));
      },
    },
    {
      provide: RUN_SETTINGS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): RunSettings => ({ workspacesDir: config.HS_WORKSPACES_DIR, sweepMs: config.RUN_SWEEP_MS, taskLeaseMs: config.RUN_TASK_LEASE_MS }),
    },
    {
      provide: RUN_SOURCE_POLICY,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new RunSourcePolicy({ roots: config.HS_SOURCE_ROOTS, workspacesDir: config.HS_WORKSPACES_DIR }),
    },
    {
      provide: RUN_WORKSPACE,
      inject: [RUN_SETTINGS, RUN_SOURCE_POLICY],
      useFactory: (settings: RunSettings, sources: RunSourcePolicy) => new GitRunWorkspace(settings.workspacesDir, sources),
    },
    {
      provide: RUN_CHECKS,
      inject: [RUN_WORKSPACE, SessionSandbox, APP_CONFIG],
      useFactory: (workspace: RunWorkspacePort, sandbox: SessionSandbox, config: AppConfig) =>
        new SandboxedRegressionCheck(workspace, (who, dir) => sandbox.forSession(who, dir), config.HS_FIX_CHECK_TIMEOUT_MS),
    },
  ],
  controllers: [StartRunHandler, AnswerRunHandler, GetRunHandler, ListRunsHandler, GetRunDiffHandler],
  exports: [RunProcess, RunsProjection, RUN_SESSIONS, RUN_WORKSPACE, RUN_SETTINGS],
})
export class RunsModule {}
