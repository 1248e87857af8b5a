import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule, ReadModelModule } from '@headspace/platform';
import { join } from 'node:path';
import { AskRow } from './asks/ask.entity';
import { AsksModule } from './asks/asks.module';
import { BatchRow } from './batches/batch.entity';
import { BatchesModule } from './batches/batches.module';
import { EvalRunRow } from './evals/eval-run.entity';
import { EvalsModule } from './evals/evals.module';
import { LoopRow } from './loops/loop.entity';
import { LoopsModule } from './loops/loops.module';
import { SERVICE, type AppConfig } from './config';
import { McpModule } from './mcp/mcp.module';
import { OrchestratorStoreModule } from './orchestrator-store.module';
import { PluginRow } from './plugins/plugin.entity';
import { PluginsModule } from './plugins/plugins.module';
import { RunRow } from './runs/run.entity';
import { RunsModule } from './runs/runs.module';
import { AgentSessionRow } from './sessions/agent-session.entity';
import { TeamDirectoryRow } from './teams/team-directory.entity';
import { SessionsModule } from './sessions/sessions.module';
import { SkillsModule } from './skills/skills.module';
import { SkillRegistryModule } from './skill-registry/skill-registry.module';
import { TeamsModule } from './teams/teams.module';
import { TeammatesModule } from './teammates/teammates.module';
import { OrchestratorTelemetryModule } from './telemetry/orchestrator-telemetry.module';
import { WorkflowRow } from './workflows/workflow.entity';
import { WorkflowsModule } from './workflows/workflows.module';
import { TopologyModule } from './topology/topology.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot({ service: SERVICE, config, publishEvents: true, migrationsDirs: [join(__dirname, 'migrations')] }),
        ReadModelModule.forEntities([RunRow, AgentSessionRow, TeamDirectoryRow, AskRow, BatchRow, LoopRow, PluginRow, WorkflowRow, EvalRunRow]),
        OrchestratorStoreModule,
        TeamsModule,
        SessionsModule,
        RunsModule,
        McpModule,
        AsksModule,
        BatchesModule,
        LoopsModule,
        EvalsModule,
        TeammatesModule,
        SkillsModule,
        SkillRegistryModule,
        PluginsModule,
        WorkflowsModule,
        TopologyModule,
        OrchestratorTelemetryModule,
      ],
    };
  }
}
