import { Module } from '@nestjs/common';
import { SessionsModule } from '../sessions/sessions.module';
import { BatchProcess } from './batch.process';
import { BatchesProjection } from './batches.projection';
import { GetBatchHandler } from './get-batch/get-batch.handler';
import { ListBatchesHandler } from './list-batches/list-batches.handler';
import { SubmitBatchHandler } from './submit-batch/submit-batch.handler';

/**
 * Message Batches (issue 25 scope 8): deferrable prompts submitted through the SDK's batch API on
 * this orchestrator's model backend, polled by a crash-safe process and settled at batch prices with
 * the cost governor (ADR 0040).
 */
@Module({
  imports: [SessionsModule],
  providers: [BatchProcess, BatchesProjection],
  controllers: [SubmitBatchHandler, GetBatchHandler, ListBatchesHandler],
  exports: [BatchProcess, BatchesProjection],
})
export class BatchesModule {}
