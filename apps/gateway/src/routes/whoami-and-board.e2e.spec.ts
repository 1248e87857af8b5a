import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

/** The two reads the dashboard opens with: who the token is, and the whole task board in one answer. */
describe('GET /api/v1/whoami and GET /api/v1/teams/:team/board', () => {
  let h: GatewayHarness;
  /** Where the tasks' creation left team-manager's log: board reads wait for their read model to pass it. */
  let position: string;
  const board = (query = '', token = h.adminToken) =>
    h.call({ method: 'GET', url: `/api/v1/teams/boarded/board${query}`, headers: { 'headspace-min-position': position } }, token);
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwwhoami' });
    expect((await h.call({ method: 'POST', url: '/api/v1/teams', payload: { name: 'boarded' } }, h.adminToken)).statusCode).toBe(201);
    const batch = await h.call(
      {
        method: 'POST',
        url: '/api/v1/teams/boarded/tasks/batch',
        payload: {
          tasks: [
            { id: 'design', subject: 'Design the schema', description: 'A long description the board does not show' },
            { id: 'build', subject: 'Build the API', dependsOn: ['design'] },
            { id: 'ship', subject: 'Ship it', dependsOn: ['build'] },
          ],
        },
      },
      h.adminToken,
    );
    expect(batch.statusCode).toBe(201);
    position = batch.headers['headspace-position'] as string;
  });
  afterAll(async () => h?.close());

  it("answers each token's own role, name and scope, never its secret", async () => {
    const admin = await h.call({ method: 'GET', url: '/api/v1/whoami' }, h.adminToken);
    expect(admin.statusCode).toBe(200);
    expect(admin.json()).toEqual({ tokenId: expect.any(String), name: 'admin (HS_ADMIN_TOKEN)', role: 'admin', teams: '*', projects: '*' });
    expect(admin.body).not.toContain(h.adminToken);

    const viewer = await h.issueToken('viewer', ['boarded']);
    const seen = await h.call({ method: 'GET', url: '/api/v1/whoami' }, viewer);
    expect(seen.statusCode).toBe(200);
    expect(seen.json()).toEqual({ tokenId: expect.any(String), name: 'viewer-token', role: 'viewer', teams: ['boarded'], projects: '*' });
    expect(seen.body).not.toContain(viewer);

    const operator = await h.issueToken('operator', '*');
    expect((await h.call({ method: 'GET', url: '/api/v1/whoami' }, operator)).json()).toMatchObject({ role: 'operator', teams: '*' });
  });

  it('refuses a missing or unknown token with 401', async () => {
    expect((await h.call({ method: 'GET', url: '/api/v1/whoami' })).statusCode).toBe(401);
    const unknown = await h.call({ method: 'GET', url: '/api/v1/whoami' }, 'hst_not-a-token-this-gateway-issued-xxxxxxxxxxxxx');
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json()).toMatchObject({ code: 'AUTH.UNAUTHENTICATED' });
  });

  it('answers the whole board in one request: every task as a card, in list order, without descriptions', async () => {
    const res = await board();
    expect(res.statusCode).toBe(200);
    const answer = res.json() as { tasks: Array<Record<string, unknown>>; limited: boolean };
    expect(answer.limited).toBe(false);
    // One batch: one creation time, so the task list's order (created, then id) is by id.
    expect(answer.tasks.map((t) => [t.taskId, t.status, t.blocked, t.dependsOn])).toEqual([
      ['build', 'pending', true, ['design']],
      ['design', 'pending', false, []],
      ['ship', 'pending', true, ['build']],
    ]);
    expect(Object.keys(answer.tasks[0]).sort()).toEqual(['attempts', 'blocked', 'createdAt', 'dependsOn', 'leaseExpiresAt', 'maxAttempts', 'owner', 'status', 'subject', 'taskId']);
    expect(res.body).not.toContain('A long description');
  });

  it('holds at most `limit` tasks and says when newer ones may be left out', async () => {
    const res = await board('?limit=2');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ limited: true, tasks: [{ taskId: 'build' }, { taskId: 'design' }] });
    expect(res.json().tasks).toHaveLength(2);
  });

  it.each(['0', '1001', 'ten', '2.5'])('refuses limit=%s with a 400 naming the field', async (limit) => {
    const res = await board(`?limit=${limit}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ field: 'limit' });
  });

  it("refuses a board outside the token's teams with 403", async () => {
    const other = await h.issueToken('viewer', ['other']);
    const res = await board('', other);
    expect(res.statusCode).toBe(403);
  });
});
