import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule, ReadModelModule } from '@headspace/platform';
import { SERVICE, type AppConfig } from './config';
import { join } from 'node:path';
import { ApprovalEntry } from './approvals/approval.entity';
import { ApprovalsModule } from './approvals/approvals.module';
import { FileLockEntry } from './locks/file-lock.entity';
import { LocksModule } from './locks/locks.module';
import { MailboxMessage } from './mailboxes/mailbox-message.entity';
import { MailboxesModule } from './mailboxes/mailboxes.module';
import { ManifestModule } from './manifest/manifest.module';
import { MembersModule } from './members/members.module';
import { PersonaPoolRow, PersonaRequestRow, PersonaRosterRow, PersonaSettingsRow } from './personas/persona-board.entity';
import { PersonasModule } from './personas/personas.module';
import { TaskBoardEntry } from './tasks/task-board.entity';
import { TasksModule } from './tasks/tasks.module';
import { ShutdownBridgeModule } from './shutdown-bridge/shutdown-bridge.module';
import { TeamManagerStoreModule } from './team-manager-store.module';
import { AnnouncementRow, RosterMemberRow, RosterTeamRow } from './teams/roster/team-roster.entity';
import { TeamsModule } from './teams/teams.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot({ service: SERVICE, config, publishEvents: true, migrationsDirs: [join(__dirname, 'migrations')] }),
        ReadModelModule.forEntities([
          TaskBoardEntry,
          MailboxMessage,
          ApprovalEntry,
          FileLockEntry,
          RosterTeamRow,
          RosterMemberRow,
          AnnouncementRow,
          PersonaRosterRow,
          PersonaPoolRow,
          PersonaRequestRow,
          PersonaSettingsRow,
        ]),
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
