import { randomBytes } from 'node:crypto';
import { answerApproval, createTeam, getBudget, listApprovals, namespacedStreamName, recordUsage, setBudget } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig, NATS_CONNECTION, type NatsConnection } from '@headspace/platform';
import { createTestDatabase, startLockedNatsServer, waitFor, type LockedNatsServer, type TestDatabase } from '@headspace/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the service the governor asks for approvals; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as TeamManagerModule } from '../../team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../../team-manager/src/config';
import { ApprovalDecidedConsumer } from './budgets/approval-bridge/approval-decided.consumer';
import { AppModule } from './app.module';
import { SERVICE, configSchema } from './config';

/** The cost-governor with its own NATS credentials on a locked server (ARCHITECTURE.md §9, docs/adr/0012). */
describe('the cost-governor on a NATS server that holds it to its own subjects', () => {
  const namespace = `cgcred-${randomBytes(3).toString('hex')}`;
  const team = 'governed';
  let locked: LockedNatsServer;
  let db: TestDatabase;
  const apps: NestFastifyApplication[] = [];
  let gateway: NatsConnection;
  let orchestrator: NatsConnection;

  beforeAll(async () => {
    locked = await startLockedNatsServer({ namespace });
    db = await createTestDatabase('cgcred');
    const env = (service: typeof SERVICE) => ({ DATABASE_URL: db.url, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace, ...locked.envFor(service) });
    for (const module of [
      TeamManagerModule.forRoot(loadConfig(teamManagerConfig, env(TEAM_MANAGER), TEAM_MANAGER)),
      AppModule.forRoot(loadConfig(configSchema, env(SERVICE), SERVICE)),
    ]) {
      const app = await createServiceApp(module, { bufferLogs: false });
      await app.init();
      apps.push(app);
    }
    gateway = await locked.connectAs('gateway');
    orchestrator = await locked.connectAs('orchestrator');
    await request(gateway, createTeam, { name: team });
  });

  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
    await gateway?.close();
    await orchestrator?.close();
    await locked?.dispose();
    await db?.drop();
  });

  it('records usage, asks the team-manager for an overrun approval and applies its decision from the JetStream consumer', async () => {
    const sessionId = 'cred-session';
    await request(gateway, setBudget, { scope: { kind: 'session', sessionId }, limitUsd: '0.10', setBy: 'ops' });
    const attribution = { sessionId, persona: 'con', team, project: 'cred', surface: 'cli' as const };
    await request(orchestrator, recordUsage, { attribution, model: 'haiku', tokens: { inputTokens: 0, outputTokens: 19_000 } }); // $0.095: paused
    const approval = await waitFor(async () => (await request(gateway, listApprovals, { team, kind: 'budget-overrun' })).approvals[0], {
      message: 'the governor requested the approval at the team-manager',
    });
    await request(gateway, answerApproval, { approvalId: approval.approvalId, decision: 'deny', reason: 'no', answeredBy: 'ops' });
    await waitFor(async () => (await request(gateway, getBudget, { budgetId: `session.${sessionId}` })).status === 'stopped', {
      message: 'approval.decided reached the governor through its durable consumer',
    });

    const admin = await locked.connectAs('admin');
    try {
      const jsm = await jetstreamManager(admin);
      const durable = await jsm.consumers.info(namespacedStreamName('HS_EVT_TEAM_MANAGER'), ApprovalDecidedConsumer.durable);
      expect(durable.num_ack_pending + durable.num_pending).toBe(0);
      expect((await jsm.streams.info(namespacedStreamName('HS_EVT_COST_GOVERNOR'))).state.messages).toBeGreaterThan(0);
    } finally {
      await admin.close();
    }
  });

  it("cannot send the orchestrator's commands nor publish the team-manager's events on its own connection", async () => {
    const nc = apps[1].get<NatsConnection>(NATS_CONNECTION);
    await expect(nc.request(`${namespace}.hs.cmd.orchestrator.start-run`, '{}', { timeout: 1_000 })).rejects.toThrow(
      `Permissions Violation for Publish to "${namespace}.hs.cmd.orchestrator.start-run"`,
    );
    await expect(nc.request(`${namespace}.hs.evt.team-manager.approval.decided`, '{}', { timeout: 1_000 })).rejects.toThrow(/Permissions Violation for Publish/);
  });
});
