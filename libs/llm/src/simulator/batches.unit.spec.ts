import { describe, expect, it } from 'vitest';
import { matchBatchRoute, SimulatorBatches, type BatchAnswer, type BatchResult } from './batches';

const BASE = 'http://127.0.0.1:4010';
const echo: BatchAnswer = (params) => ({ type: 'succeeded', message: { id: `msg_sim_${String(params.n)}`, usage: { service_tier: 'batch' } } });

function setup(options: { processingMs?: number; cancelMs?: number; answer?: BatchAnswer } = {}) {
  let clock = Date.parse('2026-11-26T10:00:00.000Z');
  const answered: unknown[] = [];
  const batches = new SimulatorBatches(
    (params) => {
      answered.push(params.n);
      return (options.answer ?? echo)(params);
    },
    { processingMs: options.processingMs ?? 1_000, cancelMs: options.cancelMs, now: () => clock },
  );
  return { batches, answered, tick: (ms: number) => (clock += ms) };
}

const requests = (n: number) => Array.from({ length: n }, (_, i) => ({ custom_id: `item-${i}`, params: { n: i } }));
const results = (text: string) => text.trim().split('\n').map((line) => JSON.parse(line) as { custom_id: string; result: BatchResult });

describe('simulator message batches', () => {
  it('stays in_progress with every request processing and no results_url until the processing time has passed, then ends with every result', () => {
    const { batches, tick, answered } = setup();
    const created = batches.create({ requests: requests(4) }, BASE);
    expect(created).toMatchObject({ type: 'message_batch', processing_status: 'in_progress', request_counts: { processing: 4, succeeded: 0 }, results_url: null, ended_at: null });
    expect(created.id).toMatch(/^msgbatch_sim_[0-9a-f]{24}$/);
    tick(600);
    // Requests 0 and 1 are answered by now, but counts and results wait for the whole batch, as in the API.
    expect(batches.retrieve(created.id, BASE)).toMatchObject({ processing_status: 'in_progress', request_counts: { processing: 4 }, results_url: null });
    expect(answered).toEqual([0, 1]);
    expect(() => batches.results(created.id)).toThrow(/has not finished processing/);
    tick(400);
    const ended = batches.retrieve(created.id, BASE);
    expect(ended).toMatchObject({ processing_status: 'ended', request_counts: { processing: 0, succeeded: 4, errored: 0, canceled: 0, expired: 0 }, results_url: `${BASE}/v1/messages/batches/${created.id}/results` });
    expect(ended.ended_at).toBe('2026-11-26T10:00:01.000Z');
    expect(results(batches.results(created.id)).map((r) => [r.custom_id, r.result.type])).toEqual([0, 1, 2, 3].map((i) => [`item-${i}`, 'succeeded']));
    // Each request answered exactly once, however often the batch is read.
    batches.retrieve(created.id, BASE);
    expect(answered).toEqual([0, 1, 2, 3]);
  });

  it('cancel part-way: answered requests keep their results, the rest are canceled, through canceling to ended', () => {
    const { batches, tick } = setup({ cancelMs: 100 });
    const { id } = batches.create({ requests: requests(4) }, BASE);
    tick(500); // requests 0 and 1 are due
    expect(batches.cancel(id, BASE)).toMatchObject({ processing_status: 'canceling', cancel_initiated_at: '2026-11-26T10:00:00.500Z' });
    tick(50);
    expect(batches.status(id)).toBe('canceling');
    tick(50);
    expect(batches.retrieve(id, BASE)).toMatchObject({ processing_status: 'ended', request_counts: { succeeded: 2, canceled: 2, processing: 0 } });
    expect(results(batches.results(id)).map((r) => r.result.type)).toEqual(['succeeded', 'succeeded', 'canceled', 'canceled']);
    // Canceling an ended batch changes nothing.
    expect(batches.cancel(id, BASE)).toMatchObject({ processing_status: 'ended', request_counts: { canceled: 2 } });
  });

  it('a batch not done within 24 hours ends with its unanswered requests expired', () => {
    const { batches, tick } = setup({ processingMs: 48 * 3_600_000 });
    const { id, expires_at } = batches.create({ requests: requests(2) }, BASE);
    expect(expires_at).toBe('2026-11-27T10:00:00.000Z');
    tick(24 * 3_600_000);
    expect(batches.retrieve(id, BASE)).toMatchObject({ processing_status: 'ended', request_counts: { succeeded: 1, expired: 1 } });
  });

  it('a request the engine refuses is errored, not the batch', () => {
    const { batches, tick } = setup({
      answer: (p) => (p.n === 1 ? { type: 'errored', error: { type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } } } : echo(p)),
    });
    const { id } = batches.create({ requests: requests(3) }, BASE);
    tick(1_000);
    expect(batches.retrieve(id, BASE).request_counts).toMatchObject({ succeeded: 2, errored: 1 });
    expect(results(batches.results(id))[1].result).toMatchObject({ type: 'errored', error: { error: { type: 'invalid_request_error' } } });
  });

  it('refuses an empty request list, a bad custom_id and a duplicate custom_id with the field named', () => {
    const { batches } = setup();
    expect(() => batches.create({ requests: [] }, BASE)).toThrow(/requests/);
    expect(() => batches.create({ requests: [{ custom_id: 'has space', params: {} }] }, BASE)).toThrow(/requests\.0\.custom_id/);
    expect(() => batches.create({ requests: [{ custom_id: 'a', params: {} }, { custom_id: 'a', params: {} }] }, BASE)).toThrow(/requests\.1\.custom_id: Duplicate/);
    expect(batches.size).toBe(0);
  });

  it('lists newest first and pages by after_id; an unknown id is not_found; only an ended batch may be deleted', () => {
    const { batches, tick } = setup();
    const ids = [0, 1, 2].map(() => batches.create({ requests: requests(1) }, BASE).id);
    const first = batches.list(new URLSearchParams({ limit: '2' }), BASE);
    expect(first).toMatchObject({ has_more: true, first_id: ids[2], last_id: ids[1] });
    const next = batches.list(new URLSearchParams({ limit: '2', after_id: ids[1] }), BASE);
    expect(next.data.map((b) => b.id)).toEqual([ids[0]]);
    expect(next.has_more).toBe(false);
    expect(() => batches.retrieve('msgbatch_nope', BASE)).toThrow(/No batch/);
    expect(() => batches.delete(ids[0])).toThrow(/still processing/);
    tick(1_000);
    expect(batches.delete(ids[0])).toEqual({ id: ids[0], type: 'message_batch_deleted' });
    expect(batches.size).toBe(2);
  });

  it('routes the batch paths of the API', () => {
    expect(matchBatchRoute('POST', '/v1/messages/batches')).toEqual({ op: 'create' });
    expect(matchBatchRoute('GET', '/v1/messages/batches')).toEqual({ op: 'list' });
    expect(matchBatchRoute('GET', '/v1/messages/batches/b1')).toEqual({ op: 'retrieve', id: 'b1' });
    expect(matchBatchRoute('GET', '/v1/messages/batches/b1/results')).toEqual({ op: 'results', id: 'b1' });
    expect(matchBatchRoute('POST', '/v1/messages/batches/b1/cancel')).toEqual({ op: 'cancel', id: 'b1' });
    expect(matchBatchRoute('DELETE', '/v1/messages/batches/b1')).toEqual({ op: 'delete', id: 'b1' });
    expect(matchBatchRoute('PUT', '/v1/messages/batches/b1')).toBeUndefined();
    expect(matchBatchRoute('POST', '/v1/messages')).toBeUndefined();
  });
});
