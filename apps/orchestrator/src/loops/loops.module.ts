import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@headspace/platform';
import { AgentsModule } from '../agents/agents.module';
import type { AppConfig } from '../config';
import { RUN_SETTINGS, type RunSettings } from '../runs/run-ports';
import { RUN_SOURCE_POLICY, RunSourcePolicy } from '../runs/run-source.policy';
import { RunsModule } from '../runs/runs.module';
import { SessionSandbox } from '../sessions/sandbox/session-sandbox.service';
import { SessionsModule } from '../sessions/sessions.module';
import { GetLoopHandler } from './get-loop/get-loop.handler';
import { ListLoopsHandler } from './list-loops/list-loops.handler';
import { LOOP_CHECK, LOOP_WORKSPACE, LoopProcess } from './loop.process';
import { LoopCheck } from './loop-check';
import { LoopWorkspace } from './loop-workspace';
import { LoopsProjection } from './loops.projection';
import { StartLoopHandler } from './start-loop/start-loop.handler';
import { StopLoopHandler } from './stop-loop/stop-loop.handler';

/**
 * Self-improving loops (issue 25 scope 3, ADR 47): a fresh session per iteration on the run
 * machinery's session port, a checkout of its own under the run source policy, and the check
 * command in the team's sandbox with a fix run's time limit.
 */
@Module({
  imports: [RunsModule, AgentsModule, SessionsModule],
  providers: [
    LoopProcess,
    LoopsProjection,
    {
      provide: RUN_SOURCE_POLICY,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new RunSourcePolicy({ roots: config.HS_SOURCE_ROOTS, workspacesDir: config.HS_WORKSPACES_DIR }),
    },
    {
      provide: LOOP_WORKSPACE,
      inject: [RUN_SETTINGS, RUN_SOURCE_POLICY],
      useFactory: (settings: RunSettings, sources: RunSourcePolicy) => new LoopWorkspace(settings.workspacesDir, sources),
    },
    {
      provide: LOOP_CHECK,
      inject: [SessionSandbox, APP_CONFIG],
      useFactory: (sandbox: SessionSandbox, config: AppConfig) => new LoopCheck((who, dir) => sandbox.forSession(who, dir), config.HS_FIX_CHECK_TIMEOUT_MS),
    },
  ],
  controllers: [StartLoopHandler, GetLoopHandler, ListLoopsHandler, StopLoopHandler],
  exports: [LoopProcess, LoopsProjection],
})
export class LoopsModule {}
