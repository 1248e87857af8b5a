import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTeam, sessionStreamId } from '@headspace/contracts';
import { EventStore } from '@headspace/event-store';
import { eventStreamFor } from '@headspace/messaging';
import { loadConfig } from '@headspace/platform';
import { waitFor } from '@headspace/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real services a session's events pass through; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import type { CostGovernorHarness } from '../../../cost-governor/src/testing/cost-governor-harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as GatewayModule } from '../../../gateway/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as GATEWAY, configSchema as gatewayConfig } from '../../../gateway/src/config';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SseTestClient } from '../../../gateway/src/stream/testing/sse-test-client';
import { startSessionsOnSimulator } from './testing/sessions-on-simulator.harness';
import { SessionSupervisor } from './session-supervisor';

// Fakes in real formats; the scenario (testing/scenarios/leak-secrets.yaml) quotes the Anthropic key.
const ANTHROPIC_KEY = 'sk-ant-api03-FAKEfake0123456789abcdefGHIJKLmnopqrST-uvwxyz_0123';
const AWS_KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const PEM_LINE = 'MIIEowIBAAKCAQEAvFakeFakeFakeKeyBodyLine0123456789abcdefghijABCD';
const PEM = `-----BEGIN RSA PRIVATE KEY-----\n${PEM_LINE}\nq3ZxFakeSecondLineOfTheKeyBody0123456789+/abcdefghijklmnopqrstuv==\n-----END RSA PRIVATE KEY-----\n`;
const DB_PASSWORD = `pw${randomBytes(8).toString('hex')}`;
/** Each must appear nowhere: not in events, JetStream, SSE or logs. */
const SECRETS = [ANTHROPIC_KEY, AWS_KEY_ID, AWS_SECRET, PEM_LINE, 'u:p@h', DB_PASSWORD];

const team = 'vault';
let h: CostGovernorHarness;
let gateway: NestFastifyApplication;
let supervisor: SessionSupervisor;
let store: EventStore;
let root: string;
let base: string;
const adminToken = `hst_spec_${randomBytes(24).toString('hex')}`;

/** Everything the in-process services write to stdout/stderr: pino writes with fs.write(Sync) on fd 1. */
const logged: string[] = [];
const original = { writeSync: fs.writeSync, write: fs.write };
function captureLogs(): void {
  const keep = (fd: unknown, data: unknown) => {
    if (fd === 1 || fd === 2) logged.push(typeof data === 'string' ? data : Buffer.from(data as Uint8Array).toString('utf8'));
  };
  fs.writeSync = ((fd: number, data: unknown, ...rest: unknown[]) => {
    keep(fd, data);
    return (original.writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
  }) as typeof fs.writeSync;
  fs.write = ((fd: number, data: unknown, ...rest: unknown[]) => {
    keep(fd, data);
    return (original.write as (...args: unknown[]) => void)(fd, data, ...rest);
  }) as typeof fs.write;
}

beforeAll(async () => {
  captureLogs();
  process.env.SSE_DISCOVERY_MS = '100';
  root = await mkdtemp(join(tmpdir(), 'hs-secrets-'));
  // debug: as much of the services' logging as there is, all of it scanned.
  ({ h, supervisor, store } = await startSessionsOnSimulator({
    name: 'secrets',
    root,
    scenarios: join(__dirname, 'testing', 'scenarios'),
    env: { LOG_LEVEL: 'debug', HS_ADMIN_TOKEN: adminToken },
  }));
  gateway = await h.addCompanion(GatewayModule.forRoot(loadConfig(gatewayConfig, h.env, GATEWAY)));
  await gateway.listen(0, '127.0.0.1');
  base = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
  await h.send(createTeam, { name: team, leadAgentType: 'general-purpose' });
});

afterAll(async () => {
  fs.writeSync = original.writeSync;
  fs.write = original.write;
  delete process.env.SSE_DISCOVERY_MS;
  await h?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const leaks = (text: string) => SECRETS.filter((secret) => text.includes(secret));

describe('secrets printed by a tool or quoted by the model are kept out of the log', () => {
  it('a session that cats an Anthropic key, an AWS key pair, a PEM private key and a DATABASE_URL records none of them in events, JetStream, SSE or logs', async () => {
    const workspace = await mkdtemp(join(root, 'ws-'));
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    await writeFile(join(workspace, '.env'), `DATABASE_URL=postgres://u:p@h/db\nREPLICA_URL=postgres://app:${DB_PASSWORD}@replica:5432/app\nREGION=eu-west-1\n`);
    await writeFile(join(workspace, 'notes.txt'), `anthropic: ${ANTHROPIC_KEY}\naws: ${AWS_KEY_ID} ${AWS_SECRET}\n`);
    await writeFile(join(workspace, 'deploy_key'), PEM);

    const feed = await SseTestClient.open(`${base}/api/v1/stream`, { authorization: `Bearer ${adminToken}` });
    expect(feed.status).toBe(200);
    const sessionId = randomUUID();
    const ended = supervisor.whenEnded(sessionId);
    await supervisor.start({ sessionId, team, persona: 'ned', kind: 'task', model: 'sonnet', effort: 'quick', runtime: 'built-in', simulated: true, prompt: 'Show me the configuration.', workspace, situation: 'leak-secrets' });
    expect((await ended).exitReason).toBe('completed');

    // 1. The events table of every service, as SQL reads it.
    const events = await store.readStream(sessionStreamId(sessionId));
    const tools = events.filter((e) => e.type === 'session.tool-called').map((e) => e.data as { content: string; isError: boolean });
    // The tools really printed the files (the record keeps everything but the secrets)…
    expect(tools.map((t) => t.isError)).toEqual([false, true]);
    expect(tools[0].content).toContain('REGION=eu-west-1');
    expect(tools[0].content).toContain('[redacted:anthropic-key]');
    expect(tools[0].content).toContain('[redacted:aws-access-key-id] [redacted:aws-secret-access-key]');
    expect(tools[1].content).toContain('[redacted:private-key]');
    // …and the model's quote of the key is redacted too.
    expect(JSON.stringify(events.filter((e) => e.type === 'session.model-called').map((e) => e.data))).toContain('The Anthropic key in notes.txt is [redacted:anthropic-key]');
    const { rows: schemas } = await h.db.pool.query<{ schema: string }>(`SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = 'events'`);
    expect(schemas.map((s) => s.schema)).toContain('orchestrator');
    let recorded = '';
    for (const { schema } of schemas) {
      const { rows } = await h.db.pool.query<{ text: string }>(`SELECT coalesce(string_agg(data::text || ' ' || metadata::text, E'\\n'), '') AS text FROM "${schema}".events`);
      recorded += rows[0].text;
    }
    expect(recorded).toContain(sessionId);
    expect(leaks(recorded)).toEqual([]);

    // 2. JetStream: every message the orchestrator's relay published to its stream.
    const jsm = await jetstreamManager(h.nc);
    const stream = eventStreamFor('orchestrator').name;
    const { rows: counted } = await h.db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM orchestrator.events`);
    await waitFor(async () => (await jsm.streams.info(stream)).state.messages >= Number(counted[0].n), { message: 'the relay published every orchestrator event' });
    const info = await jsm.streams.info(stream);
    let relayed = '';
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const message = await jsm.streams.getMessage(stream, { seq });
      relayed += `${message?.subject} ${message?.string()}\n`;
    }
    expect(relayed).toContain('[redacted:private-key]');
    expect(leaks(relayed)).toEqual([]);

    // 3. SSE: what the gateway streamed.
    await feed.until(() => feed.messages.some((m) => m.event === 'session.ended' && m.data.includes(sessionId)), 'session.ended over SSE');
    const streamed = feed.messages.map((m) => `${m.event} ${m.data}`).join('\n');
    expect(streamed).toContain('[redacted:anthropic-key]');
    expect(leaks(streamed)).toEqual([]);
    feed.close();

    // 4. Logs: every line the services wrote.
    const logs = logged.join('');
    // (the services in this process share one pino root; the orchestrator's lines are there by content)
    expect(logs).toContain('"context":"LlmBackend"');
    // The failed tool call is logged (debug) with its raw output, scrubbed by the logger.
    expect(logs).toMatch(/Bash failed: \[redacted:private-key\]/);
    expect(leaks(logs)).toEqual([]);
  });
});
