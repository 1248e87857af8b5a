import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

describe('Idempotency-Key: a retried POST has one effect and the same answer', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwidem' });
    const team = await h.call({ method: 'POST', url: '/api/v1/teams', payload: { name: 'idem' } }, h.adminToken);
    expect(team.statusCode).toBe(201);
  });
  afterAll(async () => h?.close());

  const post = (url: string, payload: object, key?: string) =>
    h.call({ method: 'POST', url, payload, headers: key ? { 'idempotency-key': key } : {} }, h.adminToken);
  const eventsOf = async (streamId: string) =>
    Number((await h.db.pool.query(`SELECT count(*)::int AS n FROM team_manager.events WHERE stream_id = $1`, [streamId])).rows[0].n);

  it('a task created twice with one key exists once', async () => {
    const key = randomUUID();
    const first = await post('/api/v1/teams/idem/tasks', { subject: 'Write the spec' }, key);
    const again = await post('/api/v1/teams/idem/tasks', { subject: 'Write the spec' }, key);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(await eventsOf(`task-idem.${first.json().taskId}`)).toBe(1);
  });

  it('a claim retried with its key is one claim, while a new key is a second (refused) claim', async () => {
    const { taskId } = (await post('/api/v1/teams/idem/tasks', { id: 'claim-me', subject: 'Claim me' })).json();
    const key = randomUUID();
    const first = await post(`/api/v1/teams/idem/tasks/${taskId}/claim`, { owner: 'con' }, key);
    const again = await post(`/api/v1/teams/idem/tasks/${taskId}/claim`, { owner: 'con' }, key);
    expect(first.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(await eventsOf(`task-idem.${taskId}`)).toBe(2);
    const other = await post(`/api/v1/teams/idem/tasks/${taskId}/claim`, { owner: 'al' }, randomUUID());
    expect(other.statusCode).toBe(409);
    expect(await eventsOf(`task-idem.${taskId}`)).toBe(2);
  });

  it('a claim at a stale expected version is 409 EVENTSTORE.WRONG_EXPECTED_VERSION and writes nothing', async () => {
    const { taskId } = (await post('/api/v1/teams/idem/tasks', { id: 'versioned', subject: 'Versioned' })).json();
    const res = await post(`/api/v1/teams/idem/tasks/${taskId}/claim`, { owner: 'con', expectedVersion: '7' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'EVENTSTORE.WRONG_EXPECTED_VERSION' });
    expect(await eventsOf(`task-idem.${taskId}`)).toBe(1);
  });

  it("one key sent by two tokens is two commands: neither replays nor suppresses the other's", async () => {
    const key = randomUUID();
    const operator = await h.issueToken('operator', ['idem']);
    const mine = await post('/api/v1/teams/idem/tasks', { subject: 'Mine' }, key);
    const theirs = await h.call({ method: 'POST', url: '/api/v1/teams/idem/tasks', payload: { subject: 'Theirs' }, headers: { 'idempotency-key': key } }, operator);
    expect(mine.statusCode).toBe(201);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json().taskId).not.toBe(mine.json().taskId);
    expect(await eventsOf(`task-idem.${theirs.json().taskId}`)).toBe(1);
    // Each token's retry still answers its own first result.
    const theirsAgain = await h.call({ method: 'POST', url: '/api/v1/teams/idem/tasks', payload: { subject: 'Theirs' }, headers: { 'idempotency-key': key } }, operator);
    expect(theirsAgain.json()).toEqual(theirs.json());
  });

  it('without a key, two identical POSTs are two commands', async () => {
    const first = await post('/api/v1/teams/idem/tasks', { subject: 'No key' });
    const second = await post('/api/v1/teams/idem/tasks', { subject: 'No key' });
    expect(first.json().taskId).not.toBe(second.json().taskId);
  });

  it('an unusable key is refused with 400 before anything is sent', async () => {
    const before = await h.eventCount();
    const res = await post('/api/v1/teams/idem/tasks', { subject: 'Bad key' }, 'k'.repeat(201));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'GATEWAY.IDEMPOTENCY_KEY_INVALID', field: 'Idempotency-Key' });
    expect(await h.eventCount()).toBe(before);
  });
});
