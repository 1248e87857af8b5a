import { randomUUID } from 'node:crypto';
import { recordUsage } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { waitFor } from '@headspace/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

type Method = 'POST' | 'PUT' | 'PATCH';

/**
 * The README's promise for every command: a retry with the request's Idempotency-Key answers the
 * first answer (same status, same body), even when other commands changed the state in between.
 */
describe('a command retried with its Idempotency-Key answers exactly as the first time', () => {
  let h: GatewayHarness;
  let nc: NatsConnection;
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwretry', costGovernor: true });
    nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
    expect((await send('POST', '/api/v1/teams', { name: 'retry' })).statusCode).toBe(201);
    for (const [memberId, role] of [['lead', 'lead'], ['con', 'member'], ['al', 'member']]) {
      expect((await send('POST', '/api/v1/teams/retry/inboxes', { memberId, role })).statusCode).toBe(201);
    }
  });
  afterAll(async () => {
    await nc?.close();
    await h?.close();
  });

  const send = (method: Method, url: string, payload: object, key?: string) =>
    h.call({ method, url, payload, headers: key ? { 'idempotency-key': key } : {} } as InjectOptions, h.adminToken);

  /** Sends the request, lets `meanwhile` move the state on, retries with the same key. */
  async function expectSameAnswer(method: Method, url: string, payload: object, meanwhile: () => Promise<unknown> = async () => undefined) {
    const key = randomUUID();
    const first = await send(method, url, payload, key);
    expect(first.statusCode, first.body).toBeLessThan(300);
    await meanwhile();
    const again = await send(method, url, payload, key);
    expect({ status: again.statusCode, body: again.json() }).toEqual({ status: first.statusCode, body: first.json() });
    return first.json();
  }

  it('creating a team', async () => {
    await expectSameAnswer('POST', '/api/v1/teams', { name: 'retry-team' }, () => send('POST', '/api/v1/teams/retry-team/shutdown/force', {}));
  });

  it('opening an inbox', async () => {
    await expectSameAnswer('POST', '/api/v1/teams/retry/inboxes', { memberId: 'may', role: 'member' });
  });

  it('sending a direct message, a broadcast and an idle notification', async () => {
    const dm = { type: 'message', from: 'con', to: 'al', body: 'the schema is final', summary: 'the schema is final now' };
    await expectSameAnswer('POST', '/api/v1/teams/retry/messages', dm, () => send('POST', '/api/v1/teams/retry/messages', dm));
    const broadcast = { type: 'broadcast', from: 'lead', body: 'standup', summary: 'standup starts in five minutes' };
    await expectSameAnswer('POST', '/api/v1/teams/retry/messages', broadcast, () =>
      send('POST', '/api/v1/teams/retry/inboxes', { memberId: 'mark', role: 'member' }),
    );
    await expectSameAnswer('POST', '/api/v1/teams/retry/messages', { type: 'idle_notification', from: 'al' });
  });

  it('taking unread mail', async () => {
    await send('POST', '/api/v1/teams/retry/messages', { type: 'message', from: 'con', to: 'lead', body: 'first', summary: 'the first message' });
    await expectSameAnswer('POST', '/api/v1/teams/retry/inboxes/lead/take-unread', {}, () =>
      send('POST', '/api/v1/teams/retry/messages', { type: 'message', from: 'con', to: 'lead', body: 'second', summary: 'the second message' }),
    );
  });

  it('creating, claiming, heartbeating and completing a task', async () => {
    const { taskId } = await expectSameAnswer('POST', '/api/v1/teams/retry/tasks', { subject: 'Write the spec' }, () =>
      send('POST', '/api/v1/teams/retry/tasks/batch', { tasks: [{ id: 'other', subject: 'Another task' }] }),
    );
    const task = `/api/v1/teams/retry/tasks/${taskId}`;
    await expectSameAnswer('POST', `${task}/claim`, { owner: 'con' }, () => send('POST', `${task}/heartbeat`, { owner: 'con' }));
    await expectSameAnswer('POST', `${task}/heartbeat`, { owner: 'con' }, () => send('POST', `${task}/heartbeat`, { owner: 'con' }));
    await expectSameAnswer('POST', `${task}/complete`, { owner: 'con', result: 'done' });
    await send('POST', '/api/v1/teams/retry/tasks/other/claim', { owner: 'al' });
    await expectSameAnswer('POST', '/api/v1/teams/retry/tasks/other/release', { owner: 'al', reason: 'blocked' }, () =>
      send('POST', '/api/v1/teams/retry/tasks/other/claim', { owner: 'con' }),
    );
  });

  it('locking and unlocking a file', async () => {
    const lock = { path: 'src/a.ts', holder: 'al' };
    await expectSameAnswer('POST', '/api/v1/teams/retry/locks', lock, () => send('POST', '/api/v1/teams/retry/locks/unlock', lock));
    await send('POST', '/api/v1/teams/retry/locks', lock);
    await expectSameAnswer('POST', '/api/v1/teams/retry/locks/unlock', lock, () => send('POST', '/api/v1/teams/retry/locks', lock));
  });

  it('requesting and answering an approval', async () => {
    const { approvalId } = await expectSameAnswer('POST', '/api/v1/teams/retry/approvals', {
      kind: 'plan-approval',
      requester: 'con',
      summary: 'Approve the plan',
      timeoutMs: 600_000,
    });
    // The answer route looks the approval up in the read model first.
    await waitFor(async () => (await h.call({ method: 'GET', url: `/api/v1/teams/retry/approvals/${approvalId}` }, h.adminToken)).statusCode === 200);
    await expectSameAnswer('POST', `/api/v1/teams/retry/approvals/${approvalId}/answer`, { decision: 'approve', answeredBy: 'operator' });
  });

  it('spawning a teammate, its idle report and its announcement', async () => {
    await expectSameAnswer('POST', '/api/v1/teams/retry/members', { name: 'verner', task: 'Test the API' }, () =>
      send('POST', '/api/v1/teams/retry/members/verner/idle', {}),
    );
    await expectSameAnswer('POST', '/api/v1/teams/retry/members/verner/idle', { summary: 'waiting' });
    await expectSameAnswer('POST', '/api/v1/teams/retry/members/verner/announcements', { summary: 'tests written' });
  });

  it('setting a budget, approving its pause and setting a quota', async () => {
    const budget = { scope: { kind: 'team', team: 'retry' }, limitUsd: '0.01', setBy: 'ops' };
    await expectSameAnswer('PUT', '/api/v1/budgets', budget, () => send('PUT', '/api/v1/budgets', { ...budget, limitUsd: '0.02' }));
    // haiku: 5 µ$ per output token, 20,000 µ$ pauses the $0.02 budget.
    const attribution = { sessionId: 'sess-retry', persona: 'con', team: 'retry', project: 'retry-proj', surface: 'cli' as const };
    await request(nc, recordUsage, { attribution, model: 'haiku', tokens: { inputTokens: 0, outputTokens: 4_000 } });
    const resolved = await expectSameAnswer('POST', '/api/v1/budgets/team.retry/resolve', { decision: 'approve', addUsd: '0.05', resolvedBy: 'ops' }, () =>
      send('PUT', '/api/v1/budgets', { ...budget, limitUsd: '3' }),
    );
    expect(resolved.budget).toMatchObject({ status: 'active', limitMicros: '70000' });
    await expectSameAnswer('PUT', '/api/v1/projects/retry-proj/quota', { weeklyLimitUsd: '5', setBy: 'ops' }, () =>
      send('PUT', '/api/v1/projects/retry-proj/quota', { weeklyLimitUsd: '6', setBy: 'ops' }),
    );
  });

  it('registering, changing and leasing personas', async () => {
    const persona = { personaId: 'rp-one', name: 'One', pools: ['retry-pool'] };
    const rename = (name: string) => h.call({ method: 'PATCH', url: '/api/v1/personas/rp-one', payload: { name } }, h.adminToken);
    await expectSameAnswer('POST', '/api/v1/personas', persona, () => rename('Uno'));
    await expectSameAnswer('PATCH', '/api/v1/personas/rp-one', { name: 'Eins' }, () => rename('Un'));
    await expectSameAnswer('PUT', '/api/v1/pools/retry-pool/members', { personas: ['rp-one'] }, () =>
      send('PUT', '/api/v1/pools/retry-pool/members', { personas: [] }),
    );
    await send('PUT', '/api/v1/pools/retry-pool/members', { personas: ['rp-one'] });
    const grant = await expectSameAnswer('POST', '/api/v1/persona-requests', { pool: 'retry-pool', taskId: 't-1' }, async () => {
      const leased = await send('POST', '/api/v1/persona-requests', { pool: 'retry-pool', taskId: 't-2' });
      expect(leased.json().status).toBe('queued');
    });
    await expectSameAnswer('POST', `/api/v1/persona-leases/${grant.leaseId}/release`, {});
    await expectSameAnswer('PUT', '/api/v1/personas/concurrency', { maxConcurrentAgents: 3 }, () =>
      send('PUT', '/api/v1/personas/concurrency', { maxConcurrentAgents: 4 }),
    );
  });

  it('importing a manifest', async () => {
    const manifest = (description: string) => ({ yaml: ['team: retry', `description: ${description}`, 'members:', '  - name: con', '    role: backend developer', '    tools: [Read]', '    owns: ["src/**"]', ''].join('\n') });
    await expectSameAnswer('PUT', '/api/v1/teams/retry/manifest', manifest('The retry team'), () =>
      send('PUT', '/api/v1/teams/retry/manifest', manifest('The retry team, changed')),
    );
  });

  it('shutting a team down', async () => {
    await expectSameAnswer('POST', '/api/v1/teams/retry/shutdown', { reason: 'done for today' }, () =>
      send('POST', '/api/v1/teams/retry/shutdown/force', {}),
    );
  });
});
