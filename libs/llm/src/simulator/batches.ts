import { z } from 'zod';
import { SIMULATED_LABEL } from './engine';
import { describeIssues, sha256 } from './request';

/**
 * The Message Batches API of the simulator (`/v1/messages/batches`), with the real API's shapes so
 * the SDK's `client.messages.batches.*` works against it. A batch is a small state machine on an
 * injectable clock, evaluated whenever it is read:
 *
 *   in_progress ──(every request's turn came: createdAt + processingMs)──▶ ended
 *   in_progress ──cancel──▶ canceling ──(next read after cancelMs)──▶ ended (unanswered → canceled)
 *   in_progress ──(expires_at, 24 h)──▶ ended (unanswered → expired)
 *
 * Request `i` of `n` is answered at `createdAt + processingMs·(i+1)/n` (so a cancel part-way through
 * leaves some succeeded, the rest canceled), each by the simulator's normal engine with usage
 * `service_tier: "batch"`. As in the API, `request_counts` shows every request as `processing` until
 * the whole batch ends, and results (JSONL) exist only then.
 */

export type BatchStatus = 'in_progress' | 'canceling' | 'ended';

export type BatchResult =
  | { type: 'succeeded'; message: Record<string, unknown> }
  | { type: 'errored'; error: { type: 'error'; error: { type: string; message: string } } }
  | { type: 'canceled' }
  | { type: 'expired' };

/** Answers one request's `params` as POST /v1/messages would (without streaming). */
export type BatchAnswer = (params: Record<string, unknown>) => BatchResult;

export interface SimulatorBatchesOptions {
  /** Time from create to the last request answered (default 1 s). */
  processingMs?: number;
  /** Time from cancel to `ended` (default: at the next read). */
  cancelMs?: number;
  /** Clock (ms since the epoch); tests inject one. */
  now?: () => number;
}

const DAY_MS = 24 * 3_600_000;
/** The API's limits: 100,000 requests (and 256 MB, which the body limit covers). */
export const MAX_BATCH_REQUESTS = 100_000;

export const batchCreateSchema = z.looseObject({
  requests: z
    .array(
      z.looseObject({
        custom_id: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1-64 letters, digits, underscores or dashes'),
        params: z.looseObject({}),
      }),
    )
    .min(1)
    .max(MAX_BATCH_REQUESTS),
});

interface StoredRequest {
  customId: string;
  params: Record<string, unknown>;
  /** When this request is answered (ms). */
  dueAt: number;
  result?: BatchResult;
}

interface StoredBatch {
  id: string;
  createdAt: number;
  expiresAt: number;
  cancelInitiatedAt?: number;
  endedAt?: number;
  requests: StoredRequest[];
}

export interface MessageBatchJson {
  id: string;
  type: 'message_batch';
  processing_status: BatchStatus;
  request_counts: { processing: number; succeeded: number; errored: number; canceled: number; expired: number };
  ended_at: string | null;
  created_at: string;
  expires_at: string;
  archived_at: null;
  cancel_initiated_at: string | null;
  results_url: string | null;
}

/** An API error the batch routes answer with (status + API error type). */
export class BatchApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

export class SimulatorBatches {
  private readonly batches = new Map<string, StoredBatch>();
  private counter = 0;
  private readonly processingMs: number;
  private readonly cancelMs: number;
  private readonly now: () => number;

  constructor(
    private readonly answer: BatchAnswer,
    options: SimulatorBatchesOptions = {},
  ) {
    this.processingMs = options.processingMs ?? 1_000;
    this.cancelMs = options.cancelMs ?? 0;
    this.now = options.now ?? Date.now;
  }

  /** How many batches were created (specs check nothing was submitted twice). */
  get size(): number {
    return this.batches.size;
  }

  clear(): void {
    this.batches.clear();
  }

  /** POST /v1/messages/batches. Bad shapes and duplicate custom ids are 400s; each request's params are checked when it is answered. */
  create(body: unknown, baseURL: string): MessageBatchJson {
    const parsed = batchCreateSchema.safeParse(body);
    if (!parsed.success) throw new BatchApiError(400, 'invalid_request_error', describeIssues(parsed.error));
    const seen = new Set<string>();
    for (const [i, r] of parsed.data.requests.entries()) {
      if (seen.has(r.custom_id)) throw new BatchApiError(400, 'invalid_request_error', `requests.${i}.custom_id: Duplicate custom_id "${r.custom_id}"`);
      seen.add(r.custom_id);
    }
    const createdAt = this.now();
    const n = parsed.data.requests.length;
    const id = `msgbatch_sim_${sha256(`${++this.counter}:${createdAt}:${parsed.data.requests.map((r) => r.custom_id).join(',')}`).slice(0, 24)}`;
    const batch: StoredBatch = {
      id,
      createdAt,
      expiresAt: createdAt + DAY_MS,
      requests: parsed.data.requests.map((r, i) => ({ customId: r.custom_id, params: r.params, dueAt: createdAt + Math.ceil((this.processingMs * (i + 1)) / n) })),
    };
    this.batches.set(id, batch);
    return this.view(batch, baseURL);
  }

  /** GET /v1/messages/batches/:id */
  retrieve(id: string, baseURL: string): MessageBatchJson {
    return this.view(this.get(id), baseURL);
  }

  /** GET /v1/messages/batches: newest first, paged by `after_id` / `before_id` like the API. */
  list(query: URLSearchParams, baseURL: string): { data: MessageBatchJson[]; has_more: boolean; first_id: string | null; last_id: string | null } {
    const limit = Math.min(1_000, Math.max(1, Number(query.get('limit') ?? 20) || 20));
    const all = [...this.batches.values()].reverse();
    let from = 0;
    let to = all.length;
    const after = query.get('after_id');
    const before = query.get('before_id');
    if (after) from = all.findIndex((b) => b.id === after) + 1;
    if (before) to = Math.max(0, all.findIndex((b) => b.id === before));
    let page = all.slice(from, to);
    const hasMore = page.length > limit;
    page = before ? page.slice(-limit) : page.slice(0, limit);
    const data = page.map((b) => this.view(b, baseURL));
    return { data, has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
  }

  /** POST /v1/messages/batches/:id/cancel: an in-progress batch goes to `canceling`; an ended one stays as it is. */
  cancel(id: string, baseURL: string): MessageBatchJson {
    const batch = this.get(id);
    this.advance(batch);
    if (batch.endedAt === undefined && batch.cancelInitiatedAt === undefined) batch.cancelInitiatedAt = this.now();
    return this.view(batch, baseURL);
  }

  /** DELETE /v1/messages/batches/:id: only once it ended, as in the API. */
  delete(id: string): { id: string; type: 'message_batch_deleted' } {
    const batch = this.get(id);
    this.advance(batch);
    if (batch.endedAt === undefined) throw new BatchApiError(400, 'invalid_request_error', `${SIMULATED_LABEL} Batch ${id} is still processing: cancel it first`);
    this.batches.delete(id);
    return { id, type: 'message_batch_deleted' };
  }

  /** GET /v1/messages/batches/:id/results: one JSON line per request, once the batch ended. */
  results(id: string): string {
    const batch = this.get(id);
    this.advance(batch);
    if (batch.endedAt === undefined) throw new BatchApiError(404, 'not_found_error', `${SIMULATED_LABEL} Batch ${id} has not finished processing`);
    return batch.requests.map((r) => `${JSON.stringify({ custom_id: r.customId, result: r.result })}\n`).join('');
  }

  /** The status a read sees now (answers what came due, ends what is done). */
  status(id: string): BatchStatus {
    const batch = this.get(id);
    this.advance(batch);
    return statusOf(batch);
  }

  private get(id: string): StoredBatch {
    const batch = this.batches.get(id);
    if (!batch) throw new BatchApiError(404, 'not_found_error', `${SIMULATED_LABEL} No batch with id ${id}`);
    return batch;
  }

  /** Moves the batch along its state machine to the clock's now. */
  private advance(batch: StoredBatch): void {
    if (batch.endedAt !== undefined) return;
    const now = this.now();
    const stop = Math.min(batch.cancelInitiatedAt ?? Infinity, batch.expiresAt);
    for (const r of batch.requests) if (!r.result && r.dueAt <= Math.min(now, stop)) r.result = this.answerOf(r.params);
    if (batch.requests.every((r) => r.result)) {
      batch.endedAt = Math.max(batch.requests.at(-1)!.dueAt, batch.createdAt);
    } else if (batch.cancelInitiatedAt !== undefined && now >= batch.cancelInitiatedAt + this.cancelMs) {
      for (const r of batch.requests) r.result ??= { type: 'canceled' };
      batch.endedAt = now;
    } else if (now >= batch.expiresAt) {
      for (const r of batch.requests) r.result ??= { type: 'expired' };
      batch.endedAt = batch.expiresAt;
    }
  }

  private answerOf(params: Record<string, unknown>): BatchResult {
    try {
      return this.answer(params);
    } catch (error) {
      return { type: 'errored', error: { type: 'error', error: { type: 'api_error', message: `${SIMULATED_LABEL} ${(error as Error).message}` } } };
    }
  }

  private view(batch: StoredBatch, baseURL: string): MessageBatchJson {
    this.advance(batch);
    const status = statusOf(batch);
    const counts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
    if (status === 'ended') for (const r of batch.requests) counts[r.result!.type]++;
    else counts.processing = batch.requests.length;
    return {
      id: batch.id,
      type: 'message_batch',
      processing_status: status,
      request_counts: counts,
      ended_at: iso(batch.endedAt),
      created_at: new Date(batch.createdAt).toISOString(),
      expires_at: new Date(batch.expiresAt).toISOString(),
      archived_at: null,
      cancel_initiated_at: iso(batch.cancelInitiatedAt),
      results_url: status === 'ended' ? `${baseURL}/v1/messages/batches/${batch.id}/results` : null,
    };
  }
}

function statusOf(batch: StoredBatch): BatchStatus {
  if (batch.endedAt !== undefined) return 'ended';
  return batch.cancelInitiatedAt !== undefined ? 'canceling' : 'in_progress';
}

/** The batch routes: `/v1/messages/batches[/:id[/results|/cancel]]`; undefined when the path is not one of them. */
export function matchBatchRoute(method: string, path: string): { op: 'create' | 'list' | 'retrieve' | 'delete' | 'results' | 'cancel'; id?: string } | undefined {
  const m = /^\/v1\/messages\/batches(?:\/([^/]+))?(?:\/(results|cancel))?\/?$/.exec(path);
  if (!m) return undefined;
  const [, id, sub] = m;
  if (!id) return method === 'POST' ? { op: 'create' } : method === 'GET' ? { op: 'list' } : undefined;
  if (sub === 'results') return method === 'GET' ? { op: 'results', id } : undefined;
  if (sub === 'cancel') return method === 'POST' ? { op: 'cancel', id } : undefined;
  if (method === 'GET') return { op: 'retrieve', id };
  if (method === 'DELETE') return { op: 'delete', id };
  return undefined;
}
