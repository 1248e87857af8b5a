import { randomBytes, randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { startTelemetry } from '@headspace/telemetry';
import { createTestDatabase, deleteNamespaceStreams, waitFor, type TestDatabase } from '@headspace/testing';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppModule as GatewayModule } from '../app.module';
import { SERVICE as GATEWAY, configSchema as gatewayConfig } from '../config';
// The e2e spec boots the real services it exercises; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as TeamManagerModule } from '../../../team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../../../team-manager/src/config';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as OrchestratorModule } from '../../../orchestrator/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as ORCHESTRATOR, configSchema as orchestratorConfig } from '../../../orchestrator/src/config';

/**
 * The vertical slice through the spine: HTTP → gateway → NATS request → team-manager decides and
 * appends → relay → JetStream → orchestrator's durable consumer → its projection → NATS query →
 * HTTP. Real PostgreSQL, real NATS; a namespace keeps this run's subjects and streams its own.
 */
describe('create a team through the gateway and see it in the orchestrator', () => {
  let db: TestDatabase;
  const apps: NestFastifyApplication[] = [];
  let gateway: NestFastifyApplication;
  const adminToken = `hst_e2e_${randomBytes(24).toString('base64url')}`;
  const env = () => ({ DATABASE_URL: db.url, NATS_URL: process.env.NATS_URL, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace, HS_ADMIN_TOKEN: adminToken });
  const namespace = `e2e-${randomBytes(4).toString('hex')}`;
  const auth = { authorization: `Bearer ${adminToken}` };

  beforeAll(async () => {
    startTelemetry({ serviceName: 'headspace-e2e' });
    db = await createTestDatabase('slice');
    const boot = async (module: Parameters<typeof createServiceApp>[0]) => {
      const app = await createServiceApp(module, { bufferLogs: false });
      await app.init();
      apps.push(app);
      return app;
    };
    await boot(TeamManagerModule.forRoot(loadConfig(teamManagerConfig, env(), TEAM_MANAGER)));
    await boot(OrchestratorModule.forRoot(loadConfig(orchestratorConfig, env(), ORCHESTRATOR)));
    gateway = await boot(GatewayModule.forRoot(loadConfig(gatewayConfig, env(), GATEWAY)));
    await gateway.getHttpAdapter().getInstance().ready();
  });
  afterAll(async () => {
    const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
    await deleteNamespaceStreams(nc, namespace).finally(() => nc.close());
    for (const app of apps.reverse()) await app.close();
    await db?.drop();
  });

  const http = () => gateway.getHttpAdapter().getInstance();
  const post = (body: unknown, key?: string) =>
    http().inject({ method: 'POST', url: '/api/v1/teams', payload: body as object, headers: key ? { ...auth, 'idempotency-key': key } : auth });
  const teamEvents = async (name: string) =>
    Number((await db.pool.query(`SELECT count(*) FROM team_manager.events WHERE stream_id = $1`, [`team-${name}`])).rows[0].count);

  it('Create a new team successfully: the command is appended, relayed and projected by another service', async () => {
    const res = await post({ name: 'alpha', leadAgentType: 'architect', description: 'the first team' }, randomUUID());
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({ name: 'alpha', streamVersion: '1' });

    const known = await waitFor(async () => {
      const list = (await http().inject({ method: 'GET', url: '/api/v1/teams/known', headers: auth })).json();
      return list.items.find((t: { name: string }) => t.name === 'alpha');
    }, { message: 'alpha reached the orchestrator' });
    expect(known).toMatchObject({ teamId: created.teamId, leadAgentType: 'architect' });

    const { rows } = await db.pool.query(`SELECT metadata FROM team_manager.events WHERE stream_id = 'team-alpha'`);
    expect(rows[0].metadata.commandId).toBeDefined();
    expect(rows[0].metadata.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
  });

  it('a retried request with the same Idempotency-Key has one effect and the same answer', async () => {
    const key = randomUUID();
    const first = await post({ name: 'bravo' }, key);
    const again = await post({ name: 'bravo' }, key);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(await teamEvents('bravo')).toBe(1);
  });

  it('Attempt to create duplicate team: 409 problem+json with the stable code', async () => {
    expect((await post({ name: 'charlie' })).statusCode).toBe(201);
    const res = await post({ name: 'charlie' });
    expect(res.statusCode).toBe(409);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 409, code: 'TEAM.ALREADY_EXISTS', field: 'name' });
    expect(await teamEvents('charlie')).toBe(1);
  });

  it('Attempt to create team with invalid name: 400 naming the field, nothing written', async () => {
    const res = await post({ name: 'Not A Valid Name!' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'CONTRACTS.VALIDATION_FAILED', field: 'name' });
    expect(res.body).not.toMatch(/at .*\.ts:\d+/);
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM team_manager.streams WHERE stream_id LIKE 'team-Not%'`);
    expect(rows[0].n).toBe(0);
  });

  it('concurrent creators of one name: exactly one wins, the others get TEAM.ALREADY_EXISTS', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => post({ name: 'delta' })));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes).toEqual([201, 409, 409, 409, 409, 409]);
    expect(await teamEvents('delta')).toBe(1);
  });
});
