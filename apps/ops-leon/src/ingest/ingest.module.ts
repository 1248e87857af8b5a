import { Module } from '@nestjs/common';
import { GroupsModule } from '../groups/groups.module';
import { ProjectsModule } from '../projects/projects.module';
import { GroupGate } from './group-gate';
import { IngestExceptionHandler } from './ingest-exception/ingest-exception.handler';
import { IngestGroupCommit } from './ingest-group-commit';

/** Exceptions in: key, rate limit, fingerprint, record, open/regress/spike the group. */
@Module({
  imports: [ProjectsModule, GroupsModule],
  providers: [GroupGate, IngestGroupCommit],
  controllers: [IngestExceptionHandler],
})
export class IngestModule {}
