import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, getOpsProject, HeadspaceError } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { projectView } from '../list-projects/list-projects.handler';
import { OpsProjectRow } from '../project.entity';

/** `get-project`: by name or numeric DSN id. */
@Controller()
export class GetProjectHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(getOpsProject)
  async handle(@Payload() { project }: z.output<typeof getOpsProject.request>) {
    const row = await this.reads.one(OpsProjectRow, /^\d+$/.test(project) ? { projectId: project } : { project });
    if (!row) throw new HeadspaceError(ErrorCodes.opsProjectNotFound, `No project "${project}"`, { field: 'project' });
    return projectView(row);
  }
}
