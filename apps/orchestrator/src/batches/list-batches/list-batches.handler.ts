import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { listBatches } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import type { z } from 'zod';
import { BatchRow } from '../batch.entity';

/** `hs.qry.orchestrator.list-batches`: the team's batches from the batches read model, newest first. */
@Controller()
export class ListBatchesHandler {
  constructor(private readonly reads: ReadModel) {}

  @MessagePattern(listBatches)
  async handle({ team, limit }: z.output<typeof listBatches.request>) {
    const rows = await this.reads.em().find(BatchRow, { team }, { orderBy: { submittedAt: 'desc', batchId: 'desc' }, limit });
    return {
      batches: rows.map((r) => ({
        batchId: r.batchId,
        team: r.team,
        status: r.status,
        simulated: r.simulated,
        items: r.items,
        costUsd: r.costUsd ?? null,
        submittedAt: r.submittedAt.toISOString(),
        endedAt: r.endedAt ? r.endedAt.toISOString() : null,
      })),
    };
  }
}
