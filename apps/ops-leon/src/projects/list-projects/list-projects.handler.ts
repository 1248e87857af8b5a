import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { listOpsProjects, type OpsProjectView } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import { OpsProjectRow } from '../project.entity';

export const projectView = (row: OpsProjectRow): OpsProjectView => ({
  project: row.project,
  projectId: row.projectId,
  displayName: row.displayName,
  repository: row.repository,
  trusted: row.trusted,
  environments: row.environments,
  team: row.team ?? null,
  testCommand: row.testCommand,
  verifyWindowSeconds: row.verifyWindowSeconds,
  activeKeys: row.activeKeys ?? 0,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** `list-projects`: every monitored project, by name (the gateway pages it). */
@Controller()
export class ListProjectsHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(listOpsProjects)
  async handle() {
    const rows = await this.reads.rows(OpsProjectRow, {}, { orderBy: [{ project: 'asc' }], limit: 10_000 });
    return { projects: rows.map(projectView) };
  }
}
