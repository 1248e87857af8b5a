import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTeam, getPrices, listKnownTeams, listPersonas } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig, NATS_CONNECTION, type NatsConnection } from '@headspace/platform';
import { createTestDatabase, startLockedNatsServer, waitFor, type LockedNatsServer, type TestDatabase } from '@headspace/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the services the orchestrator talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as TeamManagerModule } from '../../team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../../team-manager/src/config';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as CostGovernorModule } from '../../cost-governor/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as COST_GOVERNOR, configSchema as costGovernorConfig } from '../../cost-governor/src/config';
import { AppModule } from './app.module';
import { SERVICE, configSchema } from './config';

/** The orchestrator with its own NATS credentials on a locked server (ARCHITECTURE.md §9, docs/adr/0012). */
describe('the orchestrator on a NATS server that holds it to its own subjects', () => {
  const namespace = `orcred-${randomBytes(3).toString('hex')}`;
  let locked: LockedNatsServer;
  let db: TestDatabase;
  let root: string;
  const apps: NestFastifyApplication[] = [];
  let gateway: NatsConnection;
  let own: NatsConnection;

  beforeAll(async () => {
    locked = await startLockedNatsServer({ namespace });
    db = await createTestDatabase('orcred');
    root = await mkdtemp(join(tmpdir(), 'hs-orcred-'));
    const env = (service: typeof SERVICE) => ({ DATABASE_URL: db.url, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace, ...locked.envFor(service) });
    for (const module of [
      TeamManagerModule.forRoot(loadConfig(teamManagerConfig, env(TEAM_MANAGER), TEAM_MANAGER)),
      CostGovernorModule.forRoot(loadConfig(costGovernorConfig, env(COST_GOVERNOR), COST_GOVERNOR)),
      AppModule.forRoot(
        loadConfig(configSchema, { ...env(SERVICE), ANTHROPIC_API_KEY: '', HS_WORKSPACES_DIR: join(root, 'runs'), HS_AGENT_HOME: join(root, 'agents') }, SERVICE),
      ),
    ]) {
      const app = await createServiceApp(module, { bufferLogs: false });
      await app.init();
      apps.push(app);
    }
    own = apps[2].get<NatsConnection>(NATS_CONNECTION);
    gateway = await locked.connectAs('gateway');
  });

  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
    await gateway?.close();
    await locked?.dispose();
    await db?.drop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it("learns of a new team from the team-manager's stream through its durable consumer and answers its queries", async () => {
    await request(gateway, createTeam, { name: 'directory' });
    await waitFor(async () => (await request(gateway, listKnownTeams, {})).teams.some((t) => t.name === 'directory'), {
      message: 'team.created reached the team directory',
    });
  });

  it('asks the team-manager and the cost-governor on its own connection', async () => {
    expect((await request(own, listPersonas, {})).personas.length).toBeGreaterThan(0);
    expect((await request(own, getPrices, {})).table.version).toBeGreaterThan(0);
  });

  it("cannot serve ops-leon's commands nor publish another service's events", async () => {
    // It may report hook failures to Leon (a request nobody answers here), never answer in Leon's place.
    await expect(own.request(`${namespace}.hs.cmd.ops-leon.report-exception`, '{}', { timeout: 1_000 })).rejects.toThrow(/no responders/i);
    const errors: string[] = [];
    void (async () => {
      for await (const s of own.status()) if (s.type === 'error') errors.push(String(s.error?.message));
    })();
    own.subscribe(`${namespace}.hs.cmd.ops-leon.>`);
    await own.flush();
    await waitFor(() => errors.length >= 1, { message: 'the violation was reported' });
    expect(errors).toContain(`Permissions Violation for Subscription to "${namespace}.hs.cmd.ops-leon.>"`);
    await expect(own.request(`${namespace}.hs.evt.cost-governor.budget.stopped`, '{}', { timeout: 1_000 })).rejects.toThrow(/Permissions Violation for Publish/);
  });
});
