import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

/** A team's whole working day through HTTP only: real team-manager, PostgreSQL and NATS behind it. */
describe('a team works end to end through the REST API', () => {
  let h: GatewayHarness;
  let op: string;
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwflow', orchestrator: true });
    op = await h.issueToken('operator', ['alpha']);
  });
  afterAll(async () => h?.close());

  const get = (url: string, token = op) => h.call({ method: 'GET', url }, token);
  const post = (url: string, payload: object, token = op) => h.call({ method: 'POST', url, payload }, token);

  it('creates a team, and the orchestrator learns of it', async () => {
    const res = await post('/api/v1/teams', { name: 'alpha', description: 'the first team' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ name: 'alpha', streamVersion: '1' });
    const team = await waitFor(async () => {
      const got = await get('/api/v1/teams/alpha');
      return got.statusCode === 200 ? got.json() : undefined;
    });
    expect(team).toMatchObject({ name: 'alpha', status: 'active' });
    const known = await waitFor(async () => (await get('/api/v1/teams/known')).json().items.find((t: { name: string }) => t.name === 'alpha'));
    expect(known).toMatchObject({ name: 'alpha' });
  });

  it('lists personas page by page with an opaque cursor', async () => {
    const admin = h.adminToken;
    for (const personaId of ['zed', 'yan', 'xia']) {
      expect((await post('/api/v1/personas', { personaId, name: personaId.toUpperCase(), pools: ['backend'] }, admin)).statusCode).toBe(201);
    }
    const all = await waitFor(async () => {
      const page = (await get('/api/v1/personas?limit=500')).json();
      return ['xia', 'yan', 'zed'].every((id) => page.items.some((p: { personaId: string }) => p.personaId === id)) ? page : undefined;
    });
    const first = (await get('/api/v1/personas?limit=2')).json();
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = (await get(`/api/v1/personas?limit=500&cursor=${first.nextCursor}`)).json();
    const ids = [...first.items, ...second.items].map((p: { personaId: string }) => p.personaId);
    expect(ids).toEqual(all.items.map((p: { personaId: string }) => p.personaId));
    expect(ids).toEqual([...ids].sort());
    expect(ids).toEqual(expect.arrayContaining(['xia', 'yan', 'zed']));
    expect(second.nextCursor).toBeNull();
  });

  it('adds tasks with dependencies, refuses to claim a blocked one, then claims and completes in order', async () => {
    const created = await post('/api/v1/teams/alpha/tasks/batch', {
      tasks: [
        { id: 'design', subject: 'Design the API', metadata: { area: 'api' } },
        { id: 'build', subject: 'Build the API', dependsOn: ['design'] },
      ],
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().taskIds).toEqual(['design', 'build']);

    const blocked = await waitFor(async () => {
      const page = (await get('/api/v1/teams/alpha/tasks?blocked=true')).json();
      return page.items.length === 1 ? page : undefined;
    });
    expect(blocked.items[0]).toMatchObject({ taskId: 'build', blockedBy: ['design'] });
    const byMetadata = await waitFor(async () => (await get('/api/v1/teams/alpha/tasks?metadata.area=api')).json().items[0]);
    expect(byMetadata).toMatchObject({ taskId: 'design' });

    const early = await post('/api/v1/teams/alpha/tasks/build/claim', { owner: 'con' });
    expect(early.statusCode).toBe(409);
    expect(early.json()).toMatchObject({ code: 'TASK.BLOCKED' });

    expect((await post('/api/v1/teams/alpha/tasks/design/claim', { owner: 'con' })).statusCode).toBe(200);
    expect((await post('/api/v1/teams/alpha/tasks/design/heartbeat', { owner: 'con' })).statusCode).toBe(200);
    expect((await post('/api/v1/teams/alpha/tasks/design/complete', { owner: 'con', result: 'done' })).statusCode).toBe(200);
    const claim = await post('/api/v1/teams/alpha/tasks/build/claim', { owner: 'al' });
    expect(claim.statusCode).toBe(200);
    expect(claim.json()).toMatchObject({ taskId: 'build', owner: 'al', attempt: 1 });
    const mine = await waitFor(async () => (await get('/api/v1/teams/alpha/tasks?owner=al&status=claimed')).json().items[0]);
    expect(mine).toMatchObject({ taskId: 'build' });
    const byIds = (await get('/api/v1/teams/alpha/tasks?ids=build,design')).json();
    expect(byIds.items.map((t: { taskId: string }) => t.taskId).sort()).toEqual(['build', 'design']);
    const noIds = await get('/api/v1/teams/alpha/tasks?ids=');
    expect(noIds.statusCode).toBe(400);
    expect(JSON.stringify(noIds.json())).toContain('ids');
  });

  it('exchanges messages between members', async () => {
    expect((await post('/api/v1/teams/alpha/inboxes', { memberId: 'con', role: 'member' })).statusCode).toBe(201);
    expect((await post('/api/v1/teams/alpha/inboxes', { memberId: 'al', role: 'member' })).statusCode).toBe(201);
    const sent = await post('/api/v1/teams/alpha/messages', {
      type: 'message',
      from: 'con',
      to: 'al',
      body: 'The design is done, the API shape is in docs/api.md',
      summary: 'design done see docs api file',
    });
    expect(sent.statusCode).toBe(201);
    const unread = await post('/api/v1/teams/alpha/inboxes/al/take-unread', {});
    expect(unread.statusCode).toBe(200);
    expect(unread.json().messages).toEqual([expect.objectContaining({ from: 'con', body: expect.stringContaining('design is done') })]);
    const listed = await waitFor(async () => (await get('/api/v1/teams/alpha/inboxes/al/messages')).json().items.find((m: { read: boolean }) => m.read));
    expect(listed).toMatchObject({ from: 'con', read: true });
  });

  it('locks and unlocks a file', async () => {
    const locked = await post('/api/v1/teams/alpha/locks', { path: './src/api.ts', holder: 'al' });
    expect(locked.statusCode).toBe(200);
    expect(locked.json()).toMatchObject({ path: 'src/api.ts', holder: 'al' });
    const held = await waitFor(async () => (await get('/api/v1/teams/alpha/locks?holder=al')).json().items[0]);
    expect(held).toMatchObject({ path: 'src/api.ts' });
    const other = await post('/api/v1/teams/alpha/locks', { path: 'src/api.ts', holder: 'con' });
    expect(other.statusCode).toBe(409);
    expect((await post('/api/v1/teams/alpha/locks/unlock', { path: 'src/api.ts', holder: 'al' })).json()).toEqual({ released: true });
  });

  it('requests an approval, answers it once, and a second answer is refused', async () => {
    const requested = await post('/api/v1/teams/alpha/approvals', {
      kind: 'plan-approval',
      requester: 'con',
      summary: 'Approve the API plan',
      timeoutMs: 600_000,
    });
    expect(requested.statusCode).toBe(201);
    const { approvalId } = requested.json();
    const pending = await waitFor(async () => (await get('/api/v1/teams/alpha/approvals')).json().items[0]);
    expect(pending).toMatchObject({ approvalId, status: 'pending' });

    const answered = await post(`/api/v1/teams/alpha/approvals/${approvalId}/answer`, { decision: 'approve', answeredBy: 'operator' });
    expect(answered.statusCode).toBe(200);
    expect(answered.json()).toMatchObject({ approvalId, status: 'approved' });
    const again = await post(`/api/v1/teams/alpha/approvals/${approvalId}/answer`, { decision: 'deny', answeredBy: 'operator' });
    expect(again.statusCode).toBe(409);
    const seen = await waitFor(async () => {
      const a = (await get(`/api/v1/teams/alpha/approvals/${approvalId}`)).json();
      return a.status === 'approved' ? a : undefined;
    });
    expect(seen).toMatchObject({ decision: 'approve', decidedBy: 'operator' });
  });

  it('imports a YAML manifest and exports it again', async () => {
    const yaml = ['team: alpha', 'description: The API team', 'members:', '  - name: con', '    role: backend developer', '    tools: [Read, "Bash(git:*)"]', '    owns: ["src/**"]', ''].join('\n');
    const imported = await h.call(
      { method: 'PUT', url: '/api/v1/teams/alpha/manifest', headers: { 'content-type': 'application/yaml' }, payload: yaml },
      op,
    );
    expect(imported.statusCode).toBe(200);
    expect(imported.json()).toMatchObject({ team: 'alpha', changed: true });
    const exported = await waitFor<{ manifest: { members: unknown[] } }>(async () => {
      const res = await get('/api/v1/teams/alpha/manifest');
      return res.statusCode === 200 ? res.json() : undefined;
    });
    expect(exported.manifest.members[0]).toMatchObject({ name: 'con', tools: ['Read', 'Bash(git:*)'] });
  });
});
