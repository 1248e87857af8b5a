import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule } from '@headspace/platform';
import { SERVICE, type AppConfig } from './config';
import { join } from 'node:path';
import { ApprovalsModule } from './approvals/approvals.module';
import { LocksModule } from './locks/locks.module';
import { MailboxesModule } from './mailboxes/mailboxes.module';
import { ManifestModule } from './manifest/manifest.module';
import { MembersModule } from './members/members.module';
import { PersonasModule } from './personas/personas.module';
import { TasksModule } from './tasks/tasks.module';
import { ShutdownBridgeModule } from './shutdown-bridge/shutdown-bridge.module';
import { TeamManagerStoreModule } from './team-manager-store.module';
import { TeamsModule } from './teams/teams.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot({ service: SERVICE, config, publishEvents: true, migrationsDirs: [join(__dirname, 'migrations')] }),
        TeamManagerStoreModule,
        TeamsModule,
        TasksModule,
        MailboxesModule,
        PersonasModule,
        MembersModule,
        ApprovalsModule,
        ManifestModule,
        LocksModule,
        ShutdownBridgeModule,
      ],
    };
  }
}
