// First: the services' instrumentations, before http and fastify load (HTTP and runtime metrics).
import './testing/instrument-in-process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createIngestKey, createOpsProject, eventSubject, listGroups, transitionGroup } from '@headspace/contracts';
import { migrate } from '@headspace/event-store';
import { createConsumer, encodeEnvelope, ensureStream, eventStreamFor, request, type EventConsumer } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { metricsRequestHandler } from '@headspace/telemetry';
import { deleteNamespaceStreams, startPostgresExporter, startPrometheus, waitFor, type ExporterHandle, type PrometheusHandle } from '@headspace/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';
import { loadDashboards, panelQueries, variableQueries, type PanelQuery } from './dashboard-queries';
// The spec boots the real ops-leon beside the other services so Leon's panels have data; apps never import each other outside tests.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as OpsLeonModule } from '../../../ops-leon/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as OPS_LEON, configSchema as opsLeonConfig } from '../../../ops-leon/src/config';

/**
 * Panels whose exporter cannot run here, by dashboard and panel title. Nothing else may be listed:
 * a panel without data is a dashboard reading a name the code does not export.
 */
const NATS_EXPORTER =
  'prometheus-nats-exporter is not packaged in Debian and there is no Go toolchain here to build it; the names are those of ' +
  'nats-io/prometheus-nats-exporter (collector varz and jsz, run with -varz -jsz=all as docker-compose.yml does)';
const NO_EXPORTER_HERE: Record<string, string> = {
  'Headspace / Infrastructure / NATS connections': NATS_EXPORTER,
  'Headspace / Infrastructure / NATS messages per second': NATS_EXPORTER,
  'Headspace / Infrastructure / JetStream messages by stream': NATS_EXPORTER,
  'Headspace / Infrastructure / JetStream consumer pending (exporter)': NATS_EXPORTER,
};

const repo = resolve(__dirname, '../../../..');
const intervals = { rateInterval: '1m', range: '15m' };

let h: GatewayHarness;
let leon: NestFastifyApplication;
let nc: NatsConnection;
let namespace: string;
let workspaces: string;
let baseUrl: string;
let metrics: Server;
let pgExporter: ExporterHandle | undefined;
let prometheus: PrometheusHandle;
let poison: EventConsumer | undefined;

beforeAll(async () => {
  workspaces = await mkdtemp(join(tmpdir(), 'hs-dashboards-'));
  namespace = `dash-${randomBytes(4).toString('hex')}`;
  h = await startGatewayHarness({
    label: 'dashboards',
    orchestrator: true,
    costGovernor: true,
    env: {
      HS_NAMESPACE: namespace,
      HS_WORKSPACES_DIR: join(workspaces, 'runs'),
      HS_AGENT_HOME: join(workspaces, 'agents'),
      HS_SIMULATOR_SCENARIOS: join(repo, 'examples', 'scenarios', 'word-stats'),
      RUN_SWEEP_MS: '500',
      SESSION_SWEEP_MS: '500',
    },
  });
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const leonEnv = { DATABASE_URL: h.db.url, NATS_URL: natsUrl, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace, HS_OPS_TRIAGE: 'rules' };
  leon = await createServiceApp(OpsLeonModule.forRoot(loadConfig(opsLeonConfig, leonEnv, OPS_LEON)), { bufferLogs: false });
  await leon.init();
  nc = await connect({ servers: natsUrl });

  // Real HTTP (not inject): the HTTP server instrumentation sees only requests on a socket.
  await h.http().listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(h.http().server.address() as { port: number }).port}`;
  // Every service runs in this process, so one endpoint serves all their metrics.
  metrics = createServer(metricsRequestHandler);
  await new Promise<void>((done) => metrics.listen(0, '127.0.0.1', done));
  const metricsTarget = `127.0.0.1:${(metrics.address() as { port: number }).port}`;
  pgExporter = await startPostgresExporter({ databaseUrl: h.db.url });
  prometheus = await startPrometheus({
    scrapeIntervalSeconds: 1,
    targets: [
      { job: 'headspace', target: metricsTarget, labels: { service: 'all-in-one' } },
      { job: 'postgres', target: pgExporter.target },
    ],
  });
}, 300_000);

afterAll(async () => {
  await poison?.stop();
  await prometheus?.stop();
  await pgExporter?.stop();
  await new Promise((done) => (metrics ? metrics.close(done) : done(undefined)));
  await leon?.close();
  if (nc) await deleteNamespaceStreams(nc, namespace).finally(() => nc.close());
  await h?.close();
  await rm(workspaces, { recursive: true, force: true });
}, 120_000);

const api = async (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${h.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};

/** An exception report to Leon's ingest API; resolves to its group id. */
async function reportException(publicKey: string, type: string, message: string): Promise<string> {
  const report = { eventId: randomBytes(16).toString('hex'), type, message, level: 'error', environment: 'prod' };
  const res = await fetch(`${baseUrl}/api/v1/ops/projects/shop/exceptions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-headspace-ingest-key': publicKey },
    body: JSON.stringify(report),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { groupId: string }).groupId;
}

const groupState = async (groupId: string) => (await request(nc, listGroups, { project: 'shop', limit: 10 })).items.find((g) => g.groupId === groupId)?.state;

/**
 * Two exceptions through Leon (project of the example's team): triaged by rules and escalated; the
 * operator resolves one and asks Leon to fix the other, which starts a fix run.
 */
async function exceptionsThroughLeon(): Promise<void> {
  await request(nc, createOpsProject, { project: 'shop', repository: join(repo, 'examples', 'word-stats'), team: 'word-stats', actor: 'spec' });
  const key = await request(nc, createIngestKey, { project: 'shop', actor: 'spec' });
  const toResolve = await reportException(key.publicKey, 'OrderNotFound', 'order 8812 not found');
  const toFix = await reportException(key.publicKey, 'PaymentDeclined', 'card 4242 declined');
  for (const groupId of [toResolve, toFix]) {
    await waitFor(
      async () => {
        const state = await groupState(groupId);
        return state !== undefined && state !== 'NEW' && state !== 'ANALYSING' ? state : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 250, message: `group ${groupId} triaged` },
    );
  }
  await request(nc, transitionGroup, { groupId: toResolve, action: 'resolve', actor: 'spec' });
  await request(nc, transitionGroup, { groupId: toFix, action: 'fix', actor: 'spec' });
  await waitFor(
    async () => {
      const state = await groupState(toFix);
      return state === 'FIX_IN_PROGRESS' || state === 'FIX_COMMITTED' || state === 'VERIFIED' ? state : undefined;
    },
    { timeoutMs: 90_000, intervalMs: 250, message: 'the fix run started' },
  );
}

/** A consumer whose handler always throws: its message fails once and is dead-lettered (the error panels' data). */
async function poisonMessage(): Promise<void> {
  const schema = 'dashboard_spec';
  await migrate(h.db.pool, { schema });
  const spec = eventStreamFor('dashboard-spec');
  await ensureStream(await jetstreamManager(nc), spec);
  poison = await createConsumer({
    js: jetstream(nc),
    pool: h.db.pool,
    schema,
    stream: spec.name,
    durable: 'dashboard-spec-poison',
    filterSubjects: eventSubject('dashboard-spec', 'poison.>'),
    maxDeliver: 1,
    onError: () => undefined,
    handle: async () => {
      throw new Error('poison');
    },
  });
  const eventId = randomUUID();
  const envelope = { eventId, type: 'poison.sent', streamId: 'poison-1', streamVersion: '1', globalPosition: '1', schemaVersion: 1, data: {}, metadata: {}, recordedAt: new Date().toISOString() };
  await jetstream(nc).publish(eventSubject('dashboard-spec', envelope.type), encodeEnvelope(envelope), { msgID: eventId });
  await waitFor(() => poison!.stats.deadLettered === 1, { timeoutMs: 30_000, message: 'the poison message dead-lettered' });
}

/** A team budget, so the utilisation gauge has a series. */
async function setBudget(): Promise<void> {
  const res = await api('PUT', '/api/v1/budgets', { scope: { kind: 'team', team: 'word-stats' }, limitUsd: '10.00', setBy: 'spec' });
  expect(res.status, JSON.stringify(res.json)).toBeLessThan(300);
}

async function exampleRun(): Promise<void> {
  const goal = await readFile(join(repo, 'examples', 'word-stats', 'GOAL.md'), 'utf8');
  const started = await api('POST', '/api/v1/teams/word-stats/runs', { goal, source: join(repo, 'examples', 'word-stats'), mode: 'v3', operator: 'auto' }, { 'idempotency-key': 'dashboards-run-1' });
  expect(started.status).toBe(201);
  const runId = started.json.runId as string;
  await waitFor(
    async () => {
      const view = (await api('GET', `/api/v1/teams/word-stats/runs/${runId}`)).json;
      if (view.phase === 'failed') throw new Error(`run failed: ${JSON.stringify(view)}`);
      return view.phase === 'completed';
    },
    { timeoutMs: 240_000, intervalMs: 500, message: 'the example run to complete' },
  );
}

/** Resolves once Prometheus has scraped the services `scrapes` more times after now. */
async function scrapedAfterNow(scrapes = 3): Promise<void> {
  const since = Date.now() / 1_000;
  await waitFor(
    async () => {
      const res = await prometheus.query('timestamp(up{job="headspace"} == 1)');
      const value = (res.data?.result[0] as { value?: [number, string] } | undefined)?.value;
      return value !== undefined && Number(value[1]) >= since + scrapes;
    },
    { timeoutMs: 60_000, intervalMs: 250, message: 'Prometheus scraping the services after the run' },
  );
}

type Verdict = { query: PanelQuery; problem: string };

/** Each query over the spec's time range, as a panel asks it: data at any step counts. */
async function evaluate(queries: PanelQuery[], start: Date): Promise<Verdict[]> {
  const verdicts: Verdict[] = [];
  const end = new Date();
  for (const query of queries) {
    const res = await prometheus.queryRange(query.expr, start, end, 1);
    if (res.status !== 'success') verdicts.push({ query, problem: `${res.errorType}: ${res.error}` });
    else if ((res.data?.result ?? []).length === 0) verdicts.push({ query, problem: 'no data' });
  }
  return verdicts;
}

const key = (q: PanelQuery) => `${q.dashboard} / ${q.panel}`;
const show = (v: Verdict) => `${key(v.query)} [${v.query.refId}] ${v.problem}: ${v.query.raw}`;

describe('the shipped Grafana dashboards against a real Prometheus', () => {
  it('every panel query and variable parses and returns data after the example run, exceptions through Leon and a dead-lettered message', async () => {
    const start = new Date();
    await poisonMessage();
    await setBudget();
    await exampleRun();
    await exceptionsThroughLeon();
    await scrapedAfterNow();

    const dashboards = loadDashboards();
    const queries = [...panelQueries(dashboards, intervals), ...variableQueries(dashboards, intervals)];
    expect(queries.length).toBeGreaterThan(40);
    const verdicts = await evaluate(queries, start);

    // A panel whose exporter cannot run here may lack data, but its PromQL must still parse.
    const unexplained = verdicts.filter((v) => !(key(v.query) in NO_EXPORTER_HERE && v.problem === 'no data'));
    expect(unexplained.map(show)).toEqual([]);
    // An allow-listed panel that has data now should leave the list.
    const listedWithData = Object.keys(NO_EXPORTER_HERE).filter((panel) => !verdicts.some((v) => key(v.query) === panel));
    expect(listedWithData).toEqual([]);
  }, 420_000);
});
