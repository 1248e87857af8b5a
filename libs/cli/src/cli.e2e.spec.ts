import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { createTestDatabase, deleteNamespaceStreams, waitFor, type TestDatabase } from '@headspace/testing';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The CLI's end-to-end test runs the real binary against the real services, booted in-process.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as GatewayModule } from '../../../apps/gateway/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as GATEWAY, configSchema as gatewayConfig } from '../../../apps/gateway/src/config';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { StreamHub } from '../../../apps/gateway/src/stream/stream-hub';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as TeamManagerModule } from '../../../apps/team-manager/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as TEAM_MANAGER, configSchema as teamManagerConfig } from '../../../apps/team-manager/src/config';

const BIN = join(__dirname, '..', '..', '..', 'bin', 'headspace.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('headspace CLI against a running gateway', { timeout: 180_000 }, () => {
  const namespace = `e2e-cli-${randomBytes(3).toString('hex')}`;
  const adminToken = `cli-admin-${randomBytes(20).toString('hex')}`;
  const configFile = join(mkdtempSync(join(tmpdir(), 'hs-cli-')), 'nested', 'config.json');
  let db: TestDatabase;
  let endpoint: string;
  const apps: NestFastifyApplication[] = [];
  let gateway: NestFastifyApplication;

  /** The real binary as a child process (async: the services answer from this process). */
  const cli = (args: string[], env: Record<string, string> = {}): Promise<Run> =>
    new Promise((resolve) => {
      execFile(process.execPath, [BIN, ...args], { env: { ...process.env, HEADSPACE_CONFIG: configFile, HEADSPACE_URL: '', HEADSPACE_TOKEN: '', NO_COLOR: '1', ...env } }, (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  beforeAll(async () => {
    db = await createTestDatabase('clie2e');
    const env = { DATABASE_URL: db.url, NATS_URL: process.env.NATS_URL, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace, HS_ADMIN_TOKEN: adminToken };
    const tm = await createServiceApp(TeamManagerModule.forRoot(loadConfig(teamManagerConfig, env, TEAM_MANAGER)), { bufferLogs: false });
    apps.push(tm);
    await tm.init();
    gateway = await createServiceApp(GatewayModule.forRoot(loadConfig(gatewayConfig, env, GATEWAY)), { bufferLogs: false });
    apps.push(gateway);
    await gateway.listen(0, '127.0.0.1');
    endpoint = (await gateway.getUrl()).replace('[::1]', '127.0.0.1');
  });

  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
    const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
    await deleteNamespaceStreams(nc, namespace).finally(() => nc.close());
    await db?.drop();
  });

  it('stores endpoint and token in a private config file and shows them masked', async () => {
    expect((await cli(['config', 'set', 'endpoint', endpoint])).code).toBe(0);
    expect((await cli(['config', 'set', 'token', adminToken])).code).toBe(0);
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(configFile, 'utf8'))).toEqual({ endpoint, token: adminToken });
    const shown = await cli(['config', 'show', '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ endpoint, path: configFile });
    expect(shown.stdout).not.toContain(adminToken);
    const bad = await cli(['config', 'set', 'endpoint', 'not a url']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('endpoint must be an http(s) URL');
  });

  it('creates a team, and a second create exits 2 with the problem detail and field', async () => {
    const created = await cli(['team', 'create', 'apollo', '--lead', 'architect']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('Team apollo created');
    const again = await cli(['team', 'create', 'apollo']);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/409/);
    expect(again.stderr).toContain('field: name');
    expect(again.stderr).toContain('TEAM.ALREADY_EXISTS');
  });

  it('adds tasks with dependencies and lists them as a table and as JSON', async () => {
    expect((await cli(['task', 'add', '--team', 'apollo', 'Add auth migration', '--id', 'mig'])).code).toBe(0);
    const dependent = await cli(['task', 'add', '--team', 'apollo', 'Wire the login endpoint', '--id', 'login', '--depends-on', 'mig']);
    expect(dependent.code).toBe(0);
    expect(dependent.stdout).toContain('after mig');
    // The list reads the task board, which trails the commands by a few milliseconds.
    const table = await waitFor(async () => {
      const listed = await cli(['task', 'list', '--team', 'apollo']);
      return listed.stdout.includes('Wire the login endpoint') ? listed : undefined;
    }, { message: 'both tasks on the board' });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/│ *id *│ *subject *│ *status/);
    const loginRow = table.stdout.split('\n').find((l) => l.includes('Wire the login endpoint'));
    expect(loginRow).toMatch(/│ *login *│ *Wire the login endpoint *│ *pending *│ *- *│ *mig *│ *mig *│/);
    const json = await cli(['--json', 'task', 'list', '--team', 'apollo']);
    const tasks = JSON.parse(json.stdout) as Array<{ taskId: string; blockedBy: string[]; status: string }>;
    expect(tasks.map((t) => t.taskId).sort()).toEqual(['login', 'mig']);
    expect(tasks.find((t) => t.taskId === 'login')?.blockedBy).toEqual(['mig']);
    const unknownDep = await cli(['task', 'add', '--team', 'apollo', 'Orphan', '--depends-on', 'nope']);
    expect(unknownDep.code).toBe(2);
  });

  it('sends and reads mail, takes and releases locks, answers approvals and lists personas', async () => {
    const api = (path: string, body: unknown) =>
      fetch(`${endpoint}${path}`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await api('/api/v1/teams/apollo/inboxes', { memberId: 'robbo', role: 'member' })).status).toBeLessThan(300);
    expect((await api('/api/v1/teams/apollo/inboxes', { memberId: 'con', role: 'member' })).status).toBeLessThan(300);
    const sent = await cli(['msg', 'send', '-t', 'apollo', 'Please add the missing email index too', '--from', 'robbo', '--to', 'con']);
    expect(sent.stderr).toBe('');
    expect(sent.stdout).toContain('Sent to');
    // The inbox reads the mailbox projection, which trails the send by a few milliseconds.
    const inbox = await waitFor(async () => {
      const read = await cli(['msg', 'inbox', '-t', 'apollo', 'con']);
      return read.stdout.includes('has no messages') ? undefined : read;
    }, { message: "con's inbox shows the message" });
    expect(inbox.stdout).toMatch(/robbo .*message .*Please add the missing email index too/);
    const tooShort = await cli(['msg', 'send', '-t', 'apollo', 'hi', '--from', 'robbo', '--to', 'con']);
    expect(tooShort.code).toBe(2);
    expect(tooShort.stderr).toContain('field: summary');

    expect((await cli(['lock', 'add', '-t', 'apollo', 'src/auth.ts', '--as', 'con'])).code).toBe(0);
    // The lock list is a projection: it shows a lock (and its release) a moment after the command.
    const lockList = async () => JSON.parse((await cli(['--json', 'lock', 'list', '-t', 'apollo'])).stdout) as Array<{ path: string; holder: string }>;
    const locks = await waitFor(async () => ((await lockList()).length === 1 ? lockList() : undefined), { timeoutMs: 15_000 });
    expect(locks).toEqual([expect.objectContaining({ path: 'src/auth.ts', holder: 'con' })]);
    expect((await cli(['lock', 'release', '-t', 'apollo', 'src/auth.ts', '--as', 'con'])).stdout).toContain('released');
    expect(await waitFor(async () => ((await lockList()).length === 0 ? [] : undefined), { timeoutMs: 15_000 })).toEqual([]);

    const requested = await api('/api/v1/teams/apollo/approvals', { kind: 'plan-approval', requester: 'gavin', summary: 'Plan for the auth work', timeoutMs: 600_000 });
    const { approvalId } = (await requested.json()) as { approvalId: string };
    // The approvals queue is a projection too.
    const pending = await waitFor(async () => {
      const listed = await cli(['approval', 'list', '-t', 'apollo']);
      return listed.stdout.includes('Plan for the auth work') ? listed : undefined;
    }, { timeoutMs: 15_000, message: 'the approval in the list' });
    expect(pending.code).toBe(0);
    const answered = await cli(['approval', 'answer', '-t', 'apollo', approvalId, 'approve', '--reason', 'fine']);
    expect(answered.stdout).toContain('approved');
    expect((await cli(['approval', 'answer', '-t', 'apollo', approvalId, 'maybe'])).code).toBe(1);

    const personas = await cli(['--json', 'persona', 'list']);
    expect(personas.code).toBe(0);
    expect(Array.isArray(JSON.parse(personas.stdout))).toBe(true);
  });

  it('exits 4 on a bad token, 2 on a missing resource, 3 when the API is unreachable or fails, 1 on usage errors', async () => {
    const badToken = await cli(['team', 'show', 'apollo', '--token', 'x'.repeat(40)]);
    expect(badToken.code).toBe(4);
    expect(badToken.stderr).toContain('401');
    const missing = await cli(['team', 'show', 'no-such-team']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('404');
    const port = await closedPort();
    const down = await cli(['task', 'list', '--team', 'apollo'], { HEADSPACE_URL: `http://127.0.0.1:${port}` });
    expect(down.code).toBe(3);
    expect(down.stderr).toContain('Cannot reach the Headspace API');
    // No cost-governor runs here: the gateway answers 503 (problem+json) and the CLI exits 3 saying so.
    const noGovernor = await cli(['budget', '-t', 'apollo']);
    expect(noGovernor.code).toBe(3);
    expect(noGovernor.stderr).toMatch(/GET \/api\/v1\/budgets failed with 503: .+/);
    expect((await cli(['frobnicate'])).code).toBe(1);
    expect((await cli(['task', 'claim', '--team', 'apollo', 'mig'])).code).toBe(1); // --as missing
  });

  it('tails the live stream, printing a summary line per event, until it is stopped', async () => {
    const hub = gateway.get(StreamHub);
    const before = hub.stats.clients;
    const child = spawn(process.execPath, [BIN, 'tail', '--team', 'apollo', '--types', 'task.*'], {
      env: { ...process.env, HEADSPACE_CONFIG: configFile, HEADSPACE_URL: '', HEADSPACE_TOKEN: '', NO_COLOR: '1' },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await waitFor(() => hub.stats.clients > before, { message: 'tail connected' });
    expect((await cli(['task', 'claim', '--team', 'apollo', 'mig', '--as', 'con'])).code).toBe(0);
    await waitFor(() => out.includes("Con claimed 'Add auth migration'") || out.includes('Con claimed task #mig'), { message: `the claim line in: ${out}` });
    expect(out).toMatch(/^\d\d:\d\d:\d\d apollo +task\.claimed +Con claimed/m);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });
});

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
