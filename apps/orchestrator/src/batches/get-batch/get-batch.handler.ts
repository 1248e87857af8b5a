import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ErrorCodes, HeadspaceError, getBatch } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import type { z } from 'zod';
import { loadBatch } from '../batch-recorder';
import { batchView } from '../batch-view';

/** `hs.qry.orchestrator.get-batch`: folds the batch's stream (its items and their results, always current). */
@Controller()
export class GetBatchHandler {
  constructor(private readonly store: EventStore) {}

  @MessagePattern(getBatch)
  async handle({ batchId }: z.output<typeof getBatch.request>) {
    const state = await loadBatch(this.store, batchId);
    if (!state.submitted) throw new HeadspaceError(ErrorCodes.batchNotFound, `No batch "${batchId}"`, { field: 'batchId' });
    return batchView(state);
  }
}
