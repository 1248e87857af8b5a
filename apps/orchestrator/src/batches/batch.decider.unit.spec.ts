import { ErrorCodes, HeadspaceError, type BatchItem } from '@headspace/contracts';
import { DeciderSpec } from '@headspace/event-store';
import { describe, it } from 'vitest';
import { batchDecider, type BatchCommand, type BatchEvent } from './batch.decider';

const now = '2026-11-26T10:00:00.000Z';
const later = '2026-11-26T10:05:00.000Z';
const batchId = 'nightly-summaries-1a2b3c4d';
const item = (customId: string): BatchItem => ({
  customId,
  prompt: `summarise ${customId}`,
  persona: 'batch',
  model: 'claude-haiku-4-5',
  tier: 'haiku',
  effort: 'quick',
  maxTokens: 1_024,
  reasons: ['single-file task without reasoning → haiku', 'non-interactive → Batch API (50%)'],
  pinned: false,
});
const submittedData = { batchId, team: 'red', items: [item('a'), item('b')], simulated: true };
const submitted: BatchEvent = { type: 'batch.submitted', data: { ...submittedData, submittedAt: now } };
const attempted: BatchEvent = { type: 'batch.create-attempted', data: { batchId, attempt: 1, at: now } };
const createdData = { batchId, providerBatchId: 'msgbatch_sim_abc', adopted: false, expiresAt: '2026-11-27T10:00:00.000Z' };
const created: BatchEvent = { type: 'batch.created', data: { ...createdData, at: now } };
const usage = { inputTokens: 40, outputTokens: 12, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 };
const settlement = (customId: string, result: 'succeeded' | 'errored' = 'succeeded') => ({
  batchId,
  customId,
  result,
  ...(result === 'succeeded' ? { text: `[simulated] answer ${customId}`, model: 'claude-haiku-4-5', usage, usageId: `u-${customId}`, costUsd: '0.00005' } : { error: 'invalid_request_error: bad' }),
  simulated: true,
});
const settled = (customId: string, result: 'succeeded' | 'errored' = 'succeeded'): BatchEvent => ({ type: 'batch.item-settled', data: { ...settlement(customId, result), at: later } });
const ended: BatchEvent = { type: 'batch.ended', data: { batchId, counts: { succeeded: 1, errored: 1, canceled: 0, expired: 0 }, costUsd: '0.00005', standardCostUsd: '0.0001', at: later } };
const failed: BatchEvent = { type: 'batch.failed', data: { batchId, reason: 'the API refused the batch', at: later } };

const spec = DeciderSpec.for(batchDecider);
const notFound = (e: unknown) => e instanceof HeadspaceError && e.code === ErrorCodes.batchNotFound && e.field === 'batchId';

describe('batch decider', () => {
  describe('submit-batch', () => {
    const command: BatchCommand = { type: 'submit-batch', ...submittedData, now };
    it('records the items with their routing', () => spec.given([]).when(command).then([submitted]));
    it('records nothing for a retried submit', () => spec.given([submitted]).when(command).then([]));
  });

  describe('attempt-create', () => {
    it('records the first create attempt of a submitted batch', () => spec.given([submitted]).when({ type: 'attempt-create', batchId, attempt: 1, now }).then([attempted]));
    it('records a later attempt only in sequence', () => spec.given([submitted, attempted]).when({ type: 'attempt-create', batchId, attempt: 1, now }).then([]));
    it('records no attempt once the batch was created (a restart polls instead)', () => spec.given([submitted, attempted, created]).when({ type: 'attempt-create', batchId, attempt: 2, now }).then([]));
    it('refuses a batch that does not exist, naming batchId', () => spec.given([]).when({ type: 'attempt-create', batchId, attempt: 1, now }).thenThrows(notFound));
  });

  describe('record-created', () => {
    const command: BatchCommand = { type: 'record-created', ...createdData, now };
    it('records the provider batch id of a submitted batch', () => spec.given([submitted, attempted]).when(command).then([created]));
    it('records it once: a second provider id is never taken', () => spec.given([submitted, attempted, created]).when({ ...command, providerBatchId: 'msgbatch_other' }).then([]));
    it('records nothing on a failed batch', () => spec.given([submitted, failed]).when(command).then([]));
  });

  describe('settle-item', () => {
    it('records an item result while the batch is in progress', () => spec.given([submitted, created]).when({ type: 'settle-item', ...settlement('a'), now: later }).then([settled('a')]));
    it('settles an item once (a pass repeated after a crash)', () => spec.given([submitted, created, settled('a')]).when({ type: 'settle-item', ...settlement('a'), now: later }).then([]));
    it('ignores a result for an item the batch does not hold', () => spec.given([submitted, created]).when({ type: 'settle-item', ...settlement('zzz'), now: later }).then([]));
    it('settles nothing before the batch was created', () => spec.given([submitted]).when({ type: 'settle-item', ...settlement('a'), now: later }).then([]));
  });

  describe('end-batch', () => {
    const command: BatchCommand = { type: 'end-batch', batchId, costUsd: '0.00005', standardCostUsd: '0.0001', now: later };
    it('ends once every item is settled, with the results counted', () => spec.given([submitted, created, settled('a'), settled('b', 'errored')]).when(command).then([ended]));
    it('does not end while an item is pending', () => spec.given([submitted, created, settled('a')]).when(command).then([]));
    it('ends once', () => spec.given([submitted, created, settled('a'), settled('b', 'errored'), ended]).when(command).then([]));
  });

  describe('fail-batch', () => {
    const command: BatchCommand = { type: 'fail-batch', batchId, reason: 'the API refused the batch', now: later };
    it('fails a batch still submitting', () => spec.given([submitted, attempted]).when(command).then([failed]));
    it('leaves an ended batch ended', () => spec.given([submitted, created, settled('a'), settled('b', 'errored'), ended]).when(command).then([]));
    it('refuses a batch that does not exist', () => spec.given([]).when(command).thenThrows(notFound));
  });
});
