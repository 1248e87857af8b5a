import { join } from 'node:path';
import { Module, type DynamicModule } from '@nestjs/common';
import { PlatformModule, ReadModelModule } from '@headspace/platform';
import { SERVICE, type AppConfig } from './config';
import { OpsMetricsModule } from './exception-groups-gauge';
import { GroupRow, SampleRow, TransitionRow } from './groups/group.entity';
import { GroupsModule } from './groups/groups.module';
import { IngestModule } from './ingest/ingest.module';
import { InternalReportsModule } from './internal-reports/internal-reports.module';
import { NotificationsModule } from './notifications/notifications.module';
import { OpsLeonStoreModule } from './ops-leon-store.module';
import { IngestKeyRow, OpsProjectRow } from './projects/project.entity';
import { ProjectsModule } from './projects/projects.module';
import { RemediationModule } from './remediation/remediation.module';
import { TriageModule } from './triage/triage.module';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot({ service: SERVICE, config, publishEvents: true, migrationsDirs: [join(__dirname, 'migrations')] }),
        ReadModelModule.forEntities([OpsProjectRow, IngestKeyRow, GroupRow, SampleRow, TransitionRow]),
        OpsLeonStoreModule,
        ProjectsModule,
        GroupsModule,
        IngestModule,
        InternalReportsModule,
        NotificationsModule,
        TriageModule,
        RemediationModule,
        OpsMetricsModule,
      ],
    };
  }
}
