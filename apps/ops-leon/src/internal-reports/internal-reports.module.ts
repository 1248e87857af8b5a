import { Module } from '@nestjs/common';
import { IngestModule } from '../ingest/ingest.module';
import { ProjectsModule } from '../projects/projects.module';
import { InternalIngestKeys } from './internal-ingest-keys';
import { InternalReports } from './internal-reports.service';
import { ProjectForReport } from './project-for-report';
import { ReportExceptionHandler } from './report-exception/report-exception.handler';

/** Headspace's own errors and agent hook failures, into Leon through the ingest path. */
@Module({
  imports: [ProjectsModule, IngestModule],
  providers: [InternalReports, ProjectForReport, InternalIngestKeys],
  controllers: [ReportExceptionHandler],
})
export class InternalReportsModule {}
