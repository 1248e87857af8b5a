import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setSubjectNamespace, submitBatch } from '@headspace/contracts';
import { defaultScenariosDir, loadScenarioDirs, SimulatorHandler } from '@headspace/llm';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { createTestDatabase, deleteNamespaceStreams, waitFor, type TestDatabase } from '@headspace/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killProcess, startOrchestratorProcess } from '../testing/orchestrator-process';
// The spec boots the real services the batch talks to; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as TeamManagerModule } from '../../../team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../../../team-manager/src/config';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as CostGovernorModule } from '../../../cost-governor/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as COST_GOVERNOR, configSchema as costGovernorConfig } from '../../../cost-governor/src/config';

const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/**
 * The orchestrator as a real process, SIGKILLed (no shutdown hook runs) while a batch is in
 * progress at the API, and again while its create call is inside the API (the batch made, the
 * answer not yet back), and started again; the simulator it talks to over HTTP lives in this spec,
 * so it outlives the kills and counts the batches it was sent. Each batch must end with every item
 * settled and charged once, and exactly one batch at the API.
 */
describe('orchestrator killed mid-batch', () => {
  let db: TestDatabase;
  let nc: NatsConnection;
  let sim: SimulatorHandler;
  let server: Server;
  let simURL = '';
  /** While set, the answer to the next batch create is held back (the batch is made at once). */
  let holdNextCreate = false;
  const namespace = `batchcrash-${randomBytes(3).toString('hex')}`;
  const apps: NestFastifyApplication[] = [];
  let orchestrator: ChildProcess | undefined;

  const env = () => ({ DATABASE_URL: db.url, NATS_URL: natsUrl, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace });

  const startOrchestrator = () =>
    startOrchestratorProcess({
      ...env(),
      // The model backend is the simulator of this spec, over HTTP (any key: it checks none).
      ANTHROPIC_API_KEY: 'sk-headspace-simulated',
      ANTHROPIC_BASE_URL: simURL,
      HS_BATCH_POLL_MS: '200',
    });

  const count = async (batchId: string, type: string) =>
    Number((await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM orchestrator.events WHERE type = $1 AND stream_id = $2`, [type, `batch-${batchId}`])).rows[0].n);
  const usageRecords = async (batchId: string) =>
    (await db.pool.query<{ task: string }>(`SELECT data->'attribution'->>'taskId' AS task FROM cost_governor.events WHERE type = 'usage.recorded' AND data->'attribution'->>'project' = $1`, [batchId])).rows.map((r) => r.task);
  const submit = async (label: string) =>
    (
      await request(
        nc,
        submitBatch,
        { team: 'crash', requests: Array.from({ length: 20 }, (_, i) => ({ prompt: `${label}: summarise document ${i + 1}` })) },
        { timeoutMs: 30_000 },
      )
    ).batchId;

  async function expectSettledOnce(batchId: string) {
    await waitFor(async () => (await count(batchId, 'batch.ended')) > 0 || undefined, { timeoutMs: 120_000, intervalMs: 200, message: `batch ${batchId} to end` });
    expect(await count(batchId, 'batch.created')).toBe(1);
    expect(await count(batchId, 'batch.item-settled')).toBe(20);
    expect(await count(batchId, 'batch.ended')).toBe(1);
    const usage = await usageRecords(batchId);
    expect(usage).toHaveLength(20);
    expect(new Set(usage).size).toBe(20);
    const { rows } = await db.pool.query(`SELECT data FROM orchestrator.events WHERE type = 'batch.ended' AND stream_id = $1`, [`batch-${batchId}`]);
    expect(rows[0].data.counts).toEqual({ succeeded: 20, errored: 0, canceled: 0, expired: 0 });
  }

  beforeAll(async () => {
    db = await createTestDatabase('batchcrash');
    sim = new SimulatorHandler({ scenarios: loadScenarioDirs([defaultScenariosDir()]), batchProcessingMs: 4_000 });
    server = createServer((req, res) => {
      if (holdNextCreate && req.method === 'POST' && req.url === '/v1/messages/batches') {
        holdNextCreate = false;
        const end = res.end.bind(res) as (...args: unknown[]) => void;
        // The batch is made now; its answer never reaches the orchestrator killed meanwhile.
        res.end = ((...args: unknown[]) => {
          setTimeout(() => end(...args), 30_000).unref();
          return res;
        }) as typeof res.end;
      }
      sim.handle(req, res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    simURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    setSubjectNamespace(namespace);
    for (const module of [TeamManagerModule.forRoot(loadConfig(teamManagerConfig, env(), TEAM_MANAGER)), CostGovernorModule.forRoot(loadConfig(costGovernorConfig, env(), COST_GOVERNOR))]) {
      const app = await createServiceApp(module, { bufferLogs: false });
      await app.init();
      apps.push(app);
    }
    nc = await connect({ servers: natsUrl });
    orchestrator = await startOrchestrator();
  }, 120_000);

  afterAll(async () => {
    if (orchestrator && orchestrator.exitCode === null) await killProcess(orchestrator);
    await nc?.close();
    for (const app of apps.reverse()) await app.close();
    const cleanup = await connect({ servers: natsUrl });
    await deleteNamespaceStreams(cleanup, namespace).finally(() => cleanup.close());
    setSubjectNamespace('');
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    await db?.drop();
  });

  it('killed while the batch is in progress at the API, the restarted orchestrator polls the batch it recorded and settles it once', async () => {
    const batchId = await submit('in progress');
    await waitFor(async () => (await count(batchId, 'batch.created')) > 0 || undefined, { timeoutMs: 60_000, intervalMs: 10, message: 'the provider batch id to be recorded' });
    await killProcess(orchestrator!);
    expect(sim.batches.status((await db.pool.query(`SELECT data->>'providerBatchId' AS id FROM orchestrator.events WHERE type = 'batch.created' AND stream_id = $1`, [`batch-${batchId}`])).rows[0].id)).toBe('in_progress');
    expect(await count(batchId, 'batch.ended')).toBe(0);
    orchestrator = await startOrchestrator();
    await expectSettledOnce(batchId);
    expect(sim.batches.size).toBe(1);
  }, 240_000);

  it('killed inside the create call (the batch made, its id never recorded), the restarted orchestrator finds that batch and adopts it instead of creating another', async () => {
    const before = sim.batches.size;
    holdNextCreate = true;
    const batchId = await submit('inside create');
    await waitFor(async () => (sim.batches.size > before && (await count(batchId, 'batch.create-attempted')) > 0) || undefined, {
      timeoutMs: 60_000,
      intervalMs: 10,
      message: 'the create call to reach the API',
    });
    await killProcess(orchestrator!);
    expect(await count(batchId, 'batch.created')).toBe(0);
    orchestrator = await startOrchestrator();
    await expectSettledOnce(batchId);
    const { rows } = await db.pool.query(`SELECT data FROM orchestrator.events WHERE type = 'batch.created' AND stream_id = $1`, [`batch-${batchId}`]);
    expect(rows[0].data.adopted).toBe(true);
    expect(await count(batchId, 'batch.create-attempted')).toBe(1);
    expect(sim.batches.size).toBe(before + 1);
  }, 240_000);
});
