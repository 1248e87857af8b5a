import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, listIngestKeys } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { IngestKeyRow, OpsProjectRow } from '../project.entity';

/** `list-ingest-keys`: a project's keys, oldest first — their ids, hints and labels; never a key or its hash. */
@Controller()
export class ListIngestKeysHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(listIngestKeys)
  async handle(@Payload() { project, includeRevoked }: z.output<typeof listIngestKeys.request>) {
    if (!(await this.reads.one(OpsProjectRow, { project }))) throw new HeadspaceError(ErrorCodes.opsProjectNotFound, `No project "${project}"`, { field: 'project' });
    const rows = await this.reads.rows(IngestKeyRow, includeRevoked ? { project } : { project, revokedAt: null }, { orderBy: [{ createdAt: 'asc' }, { keyId: 'asc' }], limit: 1_000 });
    return {
      keys: rows.map((k) => ({ keyId: k.keyId, project: k.project, hint: k.hint, label: k.label, createdBy: k.createdBy, createdAt: k.createdAt.toISOString(), revokedAt: k.revokedAt?.toISOString() ?? null })),
    };
  }
}
