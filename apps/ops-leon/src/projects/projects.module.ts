import { Module } from '@nestjs/common';
import { CreateIngestKeyHandler } from './create-ingest-key/create-ingest-key.handler';
import { CreateProjectHandler } from './create-project/create-project.handler';
import { GetProjectHandler } from './get-project/get-project.handler';
import { ListIngestKeysHandler } from './list-ingest-keys/list-ingest-keys.handler';
import { ListProjectsHandler } from './list-projects/list-projects.handler';
import { ProjectDirectory } from './project-directory';
import { ProjectsProjection } from './projects.projection';
import { RevokeIngestKeyHandler } from './revoke-ingest-key/revoke-ingest-key.handler';
import { UpdateProjectHandler } from './update-project/update-project.handler';

/** Monitored projects and their ingest keys. */
@Module({
  providers: [ProjectDirectory, ProjectsProjection],
  controllers: [CreateProjectHandler, UpdateProjectHandler, CreateIngestKeyHandler, RevokeIngestKeyHandler, ListProjectsHandler, GetProjectHandler, ListIngestKeysHandler],
  exports: [ProjectDirectory],
})
export class ProjectsModule {}
