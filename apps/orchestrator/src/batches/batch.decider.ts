import {
  ErrorCodes,
  HeadspaceError,
  type batchCreateAttempted,
  type batchCreated,
  type batchEnded,
  type batchFailed,
  type batchItemSettled,
  type batchSubmitted,
  type EventData,
} from '@headspace/contracts';
import { decideByType, evolveByType, type Decider } from '@headspace/event-store';

type Submitted = EventData<typeof batchSubmitted>;
type CreateAttempted = EventData<typeof batchCreateAttempted>;
type Created = EventData<typeof batchCreated>;
type ItemSettled = EventData<typeof batchItemSettled>;
type Ended = EventData<typeof batchEnded>;
type Failed = EventData<typeof batchFailed>;

export type BatchEvent =
  | { type: 'batch.submitted'; data: Submitted }
  | { type: 'batch.create-attempted'; data: CreateAttempted }
  | { type: 'batch.created'; data: Created }
  | { type: 'batch.item-settled'; data: ItemSettled }
  | { type: 'batch.ended'; data: Ended }
  | { type: 'batch.failed'; data: Failed };

export type BatchCommand =
  | ({ type: 'submit-batch'; now: string } & Omit<Submitted, 'submittedAt'>)
  | ({ type: 'attempt-create'; now: string } & Omit<CreateAttempted, 'at'>)
  | ({ type: 'record-created'; now: string } & Omit<Created, 'at'>)
  | ({ type: 'settle-item'; now: string } & Omit<ItemSettled, 'at'>)
  | ({ type: 'end-batch'; now: string } & Omit<Ended, 'at' | 'counts'>)
  | ({ type: 'fail-batch'; now: string } & Omit<Failed, 'at'>);

export interface BatchState {
  status: 'none' | 'submitting' | 'in_progress' | 'ended' | 'failed';
  submitted?: Submitted;
  attempts: number;
  created?: Created;
  /** Settled items by custom id. */
  settled: Record<string, ItemSettled>;
  ended?: Ended;
  failed?: Failed;
}

const requireBatch = (state: BatchState, batchId: string): Submitted => {
  if (!state.submitted) throw new HeadspaceError(ErrorCodes.batchNotFound, `No batch "${batchId}"`, { field: 'batchId' });
  return state.submitted;
};

/** Items of the batch not settled yet. */
export const pendingItems = (state: BatchState): string[] => (state.submitted?.items ?? []).map((i) => i.customId).filter((id) => !state.settled[id]);

type Decide<T extends BatchCommand['type']> = (command: Extract<BatchCommand, { type: T }>, state: BatchState) => BatchEvent[];

/** A batch is submitted once: a retried submit records nothing new. */
const submit: Decide<'submit-batch'> = ({ type: _t, now, ...data }, state) => (state.status === 'none' ? [{ type: 'batch.submitted', data: { ...data, submittedAt: now } }] : []);

/** Each create call is recorded before it is made, numbered; only while nothing was created. */
const attemptCreate: Decide<'attempt-create'> = ({ type: _t, now, ...data }, state) => {
  requireBatch(state, data.batchId);
  if (state.status !== 'submitting' || data.attempt !== state.attempts + 1) return [];
  return [{ type: 'batch.create-attempted', data: { ...data, at: now } }];
};

/** The provider's batch id, recorded once right after create (or adoption): from then on the batch is only polled. */
const recordCreated: Decide<'record-created'> = ({ type: _t, now, ...data }, state) => {
  requireBatch(state, data.batchId);
  return state.status === 'submitting' ? [{ type: 'batch.created', data: { ...data, at: now } }] : [];
};

/** An item's result is settled once; a result for an item the batch does not hold changes nothing. */
const settleItem: Decide<'settle-item'> = ({ type: _t, now, ...data }, state) => {
  const submitted = requireBatch(state, data.batchId);
  if (state.status !== 'in_progress' || state.settled[data.customId] || !submitted.items.some((i) => i.customId === data.customId)) return [];
  return [{ type: 'batch.item-settled', data: { ...data, at: now } }];
};

/** Ends once every item is settled, counting the results from the stream. */
const endBatch: Decide<'end-batch'> = ({ type: _t, now, ...data }, state) => {
  requireBatch(state, data.batchId);
  if (state.status !== 'in_progress' || pendingItems(state).length > 0) return [];
  const counts = { succeeded: 0, errored: 0, canceled: 0, expired: 0 };
  for (const item of Object.values(state.settled)) counts[item.result]++;
  return [{ type: 'batch.ended', data: { ...data, counts, at: now } }];
};

/** A batch that has not ended fails once; an ended one stays as it ended. */
const failBatch: Decide<'fail-batch'> = ({ type: _t, now, ...data }, state) => {
  requireBatch(state, data.batchId);
  return state.status === 'submitting' || state.status === 'in_progress' ? [{ type: 'batch.failed', data: { ...data, at: now } }] : [];
};

export const batchDecider: Decider<BatchCommand, BatchState, BatchEvent> = {
  initialState: () => ({ status: 'none', attempts: 0, settled: {} }),
  decide: decideByType<BatchCommand, BatchState, BatchEvent>({
    'submit-batch': submit,
    'attempt-create': attemptCreate,
    'record-created': recordCreated,
    'settle-item': settleItem,
    'end-batch': endBatch,
    'fail-batch': failBatch,
  }),
  evolve: evolveByType<BatchState, BatchEvent>({
    'batch.submitted': (state, { data }) => ({ ...state, status: 'submitting', submitted: data }),
    'batch.create-attempted': (state, { data }) => ({ ...state, attempts: data.attempt }),
    'batch.created': (state, { data }) => ({ ...state, status: 'in_progress', created: data }),
    'batch.item-settled': (state, { data }) => ({ ...state, settled: { ...state.settled, [data.customId]: data } }),
    'batch.ended': (state, { data }) => ({ ...state, status: 'ended', ended: data }),
    'batch.failed': (state, { data }) => ({ ...state, status: 'failed', failed: data }),
  }),
};
