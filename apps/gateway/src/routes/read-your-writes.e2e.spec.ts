import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

const WAIT_BOUND_MS = 1_500;

/**
 * A transaction left open anywhere on the cluster holds every processor's xid8 fence: the task list
 * cannot show a task created after it began until it ends. A client that passes the position its
 * write was answered with waits for it, bounded.
 */
describe('reading your own writes through the REST API', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwryw', env: { HS_READ_WAIT_MAX_MS: String(WAIT_BOUND_MS) } });
    expect((await h.call({ method: 'POST', url: '/api/v1/teams', payload: { name: 'ryw' } }, h.adminToken)).statusCode).toBe(201);
  });
  afterAll(async () => h?.close());

  /** Another session's transaction that has taken a transaction id and stays open: the fence stops at it. */
  const holdFence = async () => {
    const client = new pg.Client({ connectionString: h.db.url, application_name: 'ryw-spec-fence-holder' });
    await client.connect();
    await client.query('BEGIN');
    await client.query('SELECT pg_current_xact_id()');
    return client;
  };
  const createTask = (subject: string, key?: string) =>
    h.call({ method: 'POST', url: '/api/v1/teams/ryw/tasks', payload: { subject }, headers: key ? { 'idempotency-key': key } : {} }, h.adminToken);
  const listTask = (taskId: string, minPosition?: string) =>
    h.call({ method: 'GET', url: `/api/v1/teams/ryw/tasks?ids=${taskId}`, headers: minPosition ? { 'headspace-min-position': minPosition } : {} }, h.adminToken);
  const ids = (res: { json(): { items: Array<{ taskId: string }> } }) => res.json().items.map((t) => t.taskId);

  it('a list passing the position of a task just created waits behind a held fence and shows the task once it is released', async () => {
    const holder = await holdFence();
    try {
      const created = await createTask('Behind the fence');
      expect(created.statusCode).toBe(201);
      const position = created.headers['headspace-position'] as string;
      expect(position).toMatch(/^team-manager:\d+:\d+$/);
      const { taskId } = created.json();

      let settled = false;
      const waited = listTask(taskId, position).finally(() => (settled = true));
      const plain = await listTask(taskId);
      expect(plain.statusCode).toBe(200);
      expect(ids(plain)).toEqual([]);
      expect(settled).toBe(false);

      await holder.query('COMMIT');
      const answer = await waited;
      expect(answer.statusCode).toBe(200);
      expect(ids(answer)).toEqual([taskId]);
    } finally {
      await holder.end();
    }
  });

  it('answers 503 READ_MODEL.TIMEOUT with Retry-After when the fence outlasts the bound', async () => {
    const holder = await holdFence();
    try {
      const created = await createTask('Never in time');
      const startedAt = Date.now();
      const res = await listTask(created.json().taskId, created.headers['headspace-position'] as string);
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ code: 'READ_MODEL.TIMEOUT' });
      expect(res.headers['retry-after']).toBeDefined();
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(WAIT_BOUND_MS);
    } finally {
      await holder.end();
    }
  });

  it('a retried create answers the position of its first attempt, so reading it does not wait for later writes', async () => {
    const key = randomUUID();
    const first = await createTask('Retried', key);
    const { taskId } = first.json();
    expect(ids(await listTask(taskId, first.headers['headspace-position'] as string))).toEqual([taskId]);
    const holder = await holdFence();
    try {
      const later = await createTask('Written behind the fence');
      const again = await createTask('Retried', key);
      expect(again.json()).toEqual(first.json());
      expect(again.headers['headspace-position']).not.toBe(later.headers['headspace-position']);
      const res = await listTask(taskId, again.headers['headspace-position'] as string);
      expect(res.statusCode).toBe(200);
      expect(ids(res)).toEqual([taskId]);
    } finally {
      await holder.end();
    }
  });

  it('refuses a malformed Headspace-Min-Position with 400 naming it', async () => {
    const res = await listTask('any', 'team-manager:abc');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'READ_MODEL.POSITION_INVALID', field: 'Headspace-Min-Position' });
  });
});
