import { waitFor } from '@headspace/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

/**
 * Independent task creations on one team race for nothing a client can see: each is answered 201
 * and each task exists once, however many arrive together (they once met 409
 * EVENTSTORE.RETRIES_EXHAUSTED for most of 50).
 */
describe('creating tasks on one team concurrently through the REST API', () => {
  let h: GatewayHarness;
  let op: string;
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwtaskrace' });
    op = await h.issueToken('operator', ['crowd']);
    expect((await h.call({ method: 'POST', url: '/api/v1/teams', payload: { name: 'crowd' } }, op)).statusCode).toBe(201);
  });
  afterAll(async () => h?.close());

  const post = (url: string, payload: object, key = randomUUID()) =>
    h.call({ method: 'POST', url, payload, headers: { 'idempotency-key': key } }, op);
  const board = async () => {
    const page = (await h.call({ method: 'GET', url: '/api/v1/teams/crowd/tasks?limit=500' }, op)).json();
    return page.items as Array<{ taskId: string }>;
  };

  it('50 concurrent POST /tasks all answer 201 and create 50 tasks, each once', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => post('/api/v1/teams/crowd/tasks', { id: `solo-${i}`, subject: `Task ${i}` })));
    expect(answers.map((a) => a.statusCode).filter((s) => s !== 201)).toEqual([]);
    const solo = await waitFor(async () => {
      const ids = (await board()).map((t) => t.taskId).filter((id) => id.startsWith('solo-'));
      return ids.length >= 50 ? ids : undefined;
    });
    expect(new Set(solo).size).toBe(50);
    expect(solo).toHaveLength(50);
  });

  it('20 concurrent batches depending on one shared task all answer 201, and a retried batch adds nothing', async () => {
    expect((await post('/api/v1/teams/crowd/tasks', { id: 'shared', subject: 'Shared groundwork' })).statusCode).toBe(201);
    const keys = Array.from({ length: 20 }, () => randomUUID());
    const batch = (i: number) => ({ tasks: [{ id: `b${i}-x`, subject: `x ${i}`, dependsOn: ['shared'] }, { id: `b${i}-y`, subject: `y ${i}`, dependsOn: ['shared', `b${i}-x`] }] });
    const first = await Promise.all(keys.map((key, i) => post('/api/v1/teams/crowd/tasks/batch', batch(i), key)));
    // The same batches again with their keys, racing new ones: retries answer as before.
    const again = await Promise.all(keys.map((key, i) => post('/api/v1/teams/crowd/tasks/batch', batch(i), key)));
    expect([...first, ...again].map((a) => a.statusCode).filter((s) => s !== 201)).toEqual([]);
    expect(again.map((a) => a.json())).toEqual(first.map((a) => a.json()));
    const batched = await waitFor(async () => {
      const ids = (await board()).map((t) => t.taskId).filter((id) => /^b\d+-/.test(id));
      return ids.length >= 40 ? ids : undefined;
    });
    expect(batched).toHaveLength(40);
  });
});
