import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { answerApproval, claimTask, completeTask, createTasks, openInbox, requestApproval, sendMessage } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { startTelemetry } from '@headspace/telemetry';
import { createTestDatabase, deleteNamespaceStreams, type TestDatabase } from '@headspace/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppModule as GatewayModule } from '../app.module';
import { SERVICE as GATEWAY, configSchema as gatewayConfig } from '../config';
// The e2e spec boots the real services it exercises; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as TeamManagerModule } from '../../../team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../../../team-manager/src/config';
import { SseTestClient, type SseMessage } from './testing/sse-test-client';

/**
 * The live feed end to end: commands go to the real team-manager over NATS (and HTTP where the
 * gateway has a route), its relay publishes to JetStream, and the gateway streams them over SSE
 * with their one-line summaries. Real PostgreSQL, real NATS, real sockets.
 */
describe('live event stream of a team at work', () => {
  const namespace = `e2e-sse-${randomBytes(3).toString('hex')}`;
  const adminToken = `admin-${randomBytes(20).toString('hex')}`;
  let db: TestDatabase;
  let nc: NatsConnection;
  let base: string;
  let gateway: NestFastifyApplication;
  const apps: NestFastifyApplication[] = [];
  const open: SseTestClient[] = [];
  const team = 'apollo';
  const env = () => ({ DATABASE_URL: db.url, NATS_URL: process.env.NATS_URL, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace, HS_ADMIN_TOKEN: adminToken });
  const auth = { authorization: `Bearer ${adminToken}` };
  const sse = async (query = '', headers: Record<string, string> = auth) => {
    const client = await SseTestClient.open(`${base}/api/v1/stream${query}`, headers);
    open.push(client);
    return client;
  };
  const summaries = (c: SseTestClient) => c.messages.map((m) => `${m.event} | ${m.json<{ summary: string }>().summary}`);

  beforeAll(async () => {
    startTelemetry({ serviceName: 'headspace-e2e' });
    process.env.HS_ADMIN_TOKEN = adminToken;
    process.env.SSE_HEARTBEAT_MS = '200';
    db = await createTestDatabase('ssestream');
    const boot = async (module: Parameters<typeof createServiceApp>[0]) => {
      const app = await createServiceApp(module, { bufferLogs: false });
      apps.push(app);
      return app;
    };
    const teamManager = await boot(TeamManagerModule.forRoot(loadConfig(teamManagerConfig, env(), TEAM_MANAGER)));
    await teamManager.init();
    gateway = await boot(GatewayModule.forRoot(loadConfig(gatewayConfig, env(), GATEWAY)));
    await gateway.listen(0, '127.0.0.1');
    base = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
    nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
  });

  afterAll(async () => {
    for (const c of open) c.close();
    for (const app of apps.reverse()) await app.close();
    if (nc) await deleteNamespaceStreams(nc, namespace).finally(() => nc.close());
    await db?.drop();
  });

  it('needs a token: 401 without one, the admin token works as a header or as ?access_token=', async () => {
    const anonymous = await sse('', {});
    expect(anonymous.status).toBe(401);
    const wrong = await sse('', { authorization: 'Bearer nope' });
    expect(wrong.status).toBe(401);
    const byQuery = await sse(`?access_token=${adminToken}`, {});
    expect(byQuery.status).toBe(200);
    expect(byQuery.headers['content-type']).toContain('text/event-stream');
    await byQuery.until(() => byQuery.comments.includes('ping'), 'a heartbeat');
    byQuery.close();
  });

  it('shows a team being created, planned, worked on, talked about and approved, in order, each with its summary', async () => {
    const feed = await sse(`?team=${team}`);
    const other = await sse('?team=someone-else');
    const created = await fetch(`${base}/api/v1/teams`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: team, leadAgentType: 'architect', description: 'auth work' }),
    });
    expect(created.status).toBe(201);
    await request(nc, createTasks, {
      team,
      tasks: [
        { id: 'mig', subject: 'Add auth migration' },
        { id: 'login', subject: 'Wire the login endpoint', dependsOn: ['mig'] },
      ],
    });
    await request(nc, claimTask, { team, taskId: 'mig', owner: 'con' });
    await request(nc, completeTask, { team, taskId: 'mig', owner: 'con', result: 'migration 0042 added' });
    await request(nc, openInbox, { team, memberId: 'robbo', role: 'member' });
    await request(nc, openInbox, { team, memberId: 'con', role: 'member' });
    await request(nc, sendMessage, { team, from: 'robbo', type: 'message', to: 'con', body: 'Add the index on users.email too, please.', summary: 'Please add the missing email index too' });
    const approval = await request(nc, requestApproval, { team, kind: 'plan-approval', requester: 'gavin', summary: 'Plan for the auth work', timeoutMs: 600_000 });
    await request(nc, answerApproval, { approvalId: approval.approvalId, decision: 'approve', answeredBy: 'operator', reason: 'looks right' });

    await feed.next((m) => m.event === 'approval.decided', 'the approval decision');
    const expected = [
      'team.created | Team apollo created (lead: architect): auth work',
      'tasklist.tasks-added | 2 tasks added to the task list (1 with dependencies)',
      // The team-manager appends the new task streams in id order.
      "task.created | Task 'Wire the login endpoint' created, after #mig",
      "task.created | Task 'Add auth migration' created",
      "task.claimed | Con claimed 'Add auth migration'",
      "task.completed | Con completed 'Add auth migration': migration 0042 added",
      'mailbox.message-delivered | Robbo sent Con a message: Please add the missing email index too',
      'approval.requested | Approval requested: Plan for the auth work (plan-approval, by Gavin)',
      'approval.decided | Approval granted by Operator: looks right',
    ];
    // The expected lines appear in this order (other events, e.g. inbox openings, may sit between them).
    const seen = summaries(feed);
    let at = -1;
    for (const line of expected) {
      const next = seen.indexOf(line, at + 1);
      expect(next, `${line}\n  in\n${seen.join('\n')}`).toBeGreaterThan(at);
      at = next;
    }
    const sample = feed.messages.find((m) => m.event === 'task.claimed') as SseMessage;
    expect(sample.json()).toMatchObject({ type: 'task.claimed', team, streamId: `task-${team}.mig`, data: { owner: 'con', taskId: 'mig' } });
    expect(sample.json<{ traceId: string }>().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(sample.json<{ time: string }>().time).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(sample.id).toMatch(/^v1:team_manager=[0-9a-z]+$/);
    expect(other.messages).toHaveLength(0);
    feed.close();
    other.close();
  });

  it('streams to a scoped token only the events of its teams', async () => {
    const res = await fetch(`${base}/api/v1/tokens`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'apollo-viewer', role: 'viewer', teams: [team] }),
    });
    expect(res.status).toBe(201);
    const { token } = (await res.json()) as { token: string };
    const scoped = await sse('', { authorization: `Bearer ${token}` });
    const admin = await sse('');
    const created = await fetch(`${base}/api/v1/teams`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'hermes' }),
    });
    expect(created.status).toBe(201);
    await request(nc, createTasks, { team, tasks: [{ id: 'scoped', subject: 'Only for apollo eyes' }] });
    const last = (c: SseTestClient) => c.next((m) => m.json<{ summary: string }>().summary === "Task 'Only for apollo eyes' created", 'the apollo task');
    await Promise.all([last(scoped), last(admin)]);
    expect(admin.messages.some((m) => m.json<{ team?: string }>().team === 'hermes')).toBe(true);
    expect(new Set(scoped.messages.map((m) => m.json<{ team?: string }>().team))).toEqual(new Set([team]));
    scoped.close();
    admin.close();
  });

  it('resumes with Last-Event-ID exactly where the client left off', async () => {
    const reference = await sse(`?team=${team}&types=task.*`);
    const reader = await sse(`?team=${team}&types=task.*`);
    await request(nc, createTasks, { team, tasks: [{ id: 'r1', subject: 'Resume one' }, { id: 'r2', subject: 'Resume two' }] });
    await request(nc, claimTask, { team, taskId: 'r1', owner: 'al' });
    await reader.until(() => reader.messages.length >= 3 && reader, 'three task events');
    const leftAt = reader.messages[2];
    reader.close();
    await request(nc, completeTask, { team, taskId: 'r1', owner: 'al' });
    await request(nc, claimTask, { team, taskId: 'r2', owner: 'may' });
    await request(nc, completeTask, { team, taskId: 'r2', owner: 'may' });
    await reference.next((m) => m.json<{ summary: string }>().summary === "May completed 'Resume two'", 'the last completion');
    const resumed = await sse(`?team=${team}&types=task.*`, { ...auth, 'last-event-id': leftAt.id! });
    await resumed.until(() => resumed.messages.length >= reference.messages.length - 3 && resumed, 'the missed events');
    expect(resumed.eventIds()).toEqual(reference.eventIds().slice(3));
    expect(summaries(resumed)).toEqual([
      "task.completed | Al completed 'Resume one'",
      "task.claimed | May claimed 'Resume two'",
      "task.completed | May completed 'Resume two'",
    ]);
    reference.close();
    resumed.close();
  });

  it("gives each event its place in its service's log, and a read sent with it in Headspace-Min-Position shows that event", async () => {
    const feed = await sse(`?team=${team}&types=mailbox.*`);
    await request(nc, openInbox, { team, memberId: 'may', role: 'member' });
    const sent = await request(nc, sendMessage, { team, from: 'con', type: 'message', to: 'may', body: 'The seed data is in, go ahead.', summary: 'The seed data is in, go ahead' });
    const frame = await feed.next((m) => m.event === 'mailbox.message-delivered' && m.json<{ data: { recipient?: string } }>().data.recipient === 'may', 'the delivery to may');
    const { eventId, position } = frame.json<{ eventId: string; position?: string }>();
    const { rows } = await db.pool.query<{ tx: string; gp: string }>('SELECT transaction_id::text AS tx, global_position::text AS gp FROM team_manager.events WHERE event_id = $1', [eventId]);
    expect(position).toBe(`team-manager:${rows[0].tx}:${rows[0].gp}`);
    const read = await fetch(`${base}/api/v1/teams/${team}/inboxes/may/messages`, { headers: { ...auth, 'headspace-min-position': position! } });
    expect(read.status).toBe(200);
    const { items } = (await read.json()) as { items: { messageId: string }[] };
    expect(items.map((m) => m.messageId)).toContain(sent.messageId);
    feed.close();
  });
});
