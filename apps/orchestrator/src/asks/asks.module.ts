import { Module } from '@nestjs/common';
import { APP_CONFIG } from '@headspace/platform';
import { AgentsModule } from '../agents/agents.module';
import type { AppConfig } from '../config';
import { RUN_SETTINGS, type RunSettings } from '../runs/run-ports';
import { RUN_SOURCE_POLICY, RunSourcePolicy } from '../runs/run-source.policy';
import { RunsModule } from '../runs/runs.module';
import { ASK_WORKSPACE, AskProcess } from './ask.process';
import { AskWorkspace } from './ask-workspace';
import { AsksProjection } from './asks.projection';
import { GetAskHandler } from './get-ask/get-ask.handler';
import { ListAsksHandler } from './list-asks/list-asks.handler';
import { StartAskHandler } from './start-ask/start-ask.handler';

/**
 * Asks (issue 24, the single-agent topology): one agent, one request, one session on the run
 * machinery's session port and settings, a checkout of its own under the same source policy as runs.
 */
@Module({
  imports: [RunsModule, AgentsModule],
  providers: [
    AskProcess,
    AsksProjection,
    {
      provide: RUN_SOURCE_POLICY,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new RunSourcePolicy({ roots: config.HS_SOURCE_ROOTS, workspacesDir: config.HS_WORKSPACES_DIR }),
    },
    {
      provide: ASK_WORKSPACE,
      inject: [RUN_SETTINGS, RUN_SOURCE_POLICY],
      useFactory: (settings: RunSettings, sources: RunSourcePolicy) => new AskWorkspace(settings.workspacesDir, sources),
    },
  ],
  controllers: [StartAskHandler, GetAskHandler, ListAsksHandler],
  exports: [AskProcess, AsksProjection],
})
export class AsksModule {}
