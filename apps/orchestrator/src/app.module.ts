import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule } from '@headspace/platform';
import { join } from 'node:path';
import { SERVICE, type AppConfig } from './config';
import { OrchestratorStoreModule } from './orchestrator-store.module';
import { RunsModule } from './runs/runs.module';
import { SessionsModule } from './sessions/sessions.module';
import { TeamsModule } from './teams/teams.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot({ service: SERVICE, config, publishEvents: true, migrationsDirs: [join(__dirname, 'migrations')] }),
        OrchestratorStoreModule,
        TeamsModule,
        SessionsModule,
        RunsModule,
      ],
    };
  }
}
