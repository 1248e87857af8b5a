import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { verifyWebhook } from '@headspace/contracts';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { followEvents, type HeadspaceEvent } from '@headspace/subscriber-sdk';
import { waitFor } from '@headspace/testing';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../program';
// The lifecycle runs through every service, booted in-process: the CLI's end-to-end test reaches into the apps.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SseTestClient } from '../../../../apps/gateway/src/stream/testing/sse-test-client';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startGatewayHarness, type GatewayHarness } from '../../../../apps/gateway/src/testing/gateway-harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { WebhookReceiver } from '../../../../apps/gateway/src/webhooks/testing/webhook-receiver';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as OpsLeonModule } from '../../../../apps/ops-leon/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as OPS_LEON, configSchema as opsLeonConfig } from '../../../../apps/ops-leon/src/config';

const repo = resolve(__dirname, '../../../..');
const demoApp = join(repo, 'examples', 'ops', 'demo-app');
const TEAM = 'ops-demo';
const HOOK_SECRET = `whsec_${randomBytes(16).toString('hex')}`;

interface Transition {
  type: string;
  from: string | null;
  to: string;
  by: string;
  reason: string | null;
  details: Record<string, unknown>;
}
interface GroupView {
  groupId: string;
  state: string;
  persona: string | null;
  domain: string | null;
  severity: string | null;
  transitions: Transition[];
}
interface DemoResult {
  project: string;
  groupId: string;
  outcome: string;
  states: string[];
  runId?: string;
  approvalId?: string;
  simulated: boolean;
}

/**
 * Leon's fix lifecycle end to end on the simulator, through HTTP only (issue 20): the demo app
 * (examples/ops/demo-app) reports its real exception, triage routes it, the fix-approval is
 * answered through the API, the fix run writes a failing regression test and the fix and commits,
 * the group is verified and resolved, and a later release's same exception reopens it. All five
 * services run in-process on a fresh database and NATS namespace; the model is the simulator
 * playing examples/scenarios/ops-demo.
 */
describe('Leon: from the demo app’s exception to a verified fix, through HTTP', { timeout: 600_000 }, () => {
  let h: GatewayHarness;
  let leon: NestFastifyApplication;
  let baseUrl: string;
  let dir: string;
  let stream: SseTestClient;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hs-fix-lifecycle-'));
    const env = {
      HS_NAMESPACE: `fix-${randomBytes(4).toString('hex')}`,
      HS_WORKSPACES_DIR: join(dir, 'runs'),
      HS_AGENT_HOME: join(dir, 'agents'),
      HS_SIMULATOR_SCENARIOS: join(repo, 'examples', 'scenarios', 'ops-demo'),
      RUN_SWEEP_MS: '500',
      SESSION_SWEEP_MS: '500',
      HS_OPS_TRIAGE_POLL_MS: '100',
      HS_OPS_REMEDIATION_POLL_MS: '200',
      HS_WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
    };
    h = await startGatewayHarness({ label: 'fixlifecycle', orchestrator: true, costGovernor: true, env });
    const leonEnv = { DATABASE_URL: h.db.url, NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', LOG_LEVEL: 'warn', ...env };
    leon = await createServiceApp(OpsLeonModule.forRoot(loadConfig(opsLeonConfig, leonEnv, OPS_LEON)), { bufferLogs: false });
    await leon.init();
    await h.http().listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(h.http().server.address() as { port: number }).port}`;
    stream = await SseTestClient.open(`${baseUrl}/api/v1/stream?since=all&types=group.*`, { authorization: `Bearer ${h.adminToken}` });
    // An event subscriber (issue 29): the team's run events delivered to a webhook.
    receiver = await new WebhookReceiver().start();
    await api('POST', '/api/v1/webhooks', { url: `${receiver.url}/runs`, eventTypes: ['run.*'], teams: [TEAM], secret: HOOK_SECRET, description: 'fix runs' });
  }, 180_000);

  afterAll(async () => {
    stream?.close();
    await receiver?.stop();
    await leon?.close();
    await h?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const api = async <T>(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object): Promise<T> => {
    const res = await fetch(`${baseUrl}${url}`, {
      method,
      headers: { authorization: `Bearer ${h.adminToken}`, ...(payload ? { 'content-type': 'application/json', 'idempotency-key': randomBytes(8).toString('hex') } : {}) },
      ...(payload ? { body: JSON.stringify(payload) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${url} → ${res.status} ${text}`);
    return (text ? JSON.parse(text) : {}) as T;
  };
  const group = (groupId: string) => api<GroupView>('GET', `/api/v1/ops/groups/${groupId}`);

  /** `headspace ops demo …` in-process against the gateway: its JSON result (stdout) and its timeline (stderr). */
  const demo = async (args: string[]) => {
    const out = new PassThrough();
    const err = new PassThrough();
    let stdout = '';
    let stderr = '';
    out.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    err.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const env = { HEADSPACE_URL: baseUrl, HEADSPACE_TOKEN: h.adminToken, HEADSPACE_CONFIG: join(dir, 'cli', 'config.json'), NO_COLOR: '1' };
    const code = await runCli(['ops', 'demo', '--json', '--app', demoApp, '--verify-window', '1', '--timeout', '420', ...args], { io: { out, err }, env });
    return { code, stdout, stderr, result: code === 0 ? (JSON.parse(stdout) as DemoResult) : undefined };
  };

  /** The group's states in the order the SSE stream carried its events. */
  const statesOnStream = (groupId: string) =>
    stream.messages
      .map((m) => ({ event: m.event ?? '', data: m.json<{ data: { groupId?: string; to?: string } }>().data }))
      .filter((m) => m.data.groupId === groupId && m.event.startsWith('group.') && m.event !== 'group.spiked')
      .map((m) => (m.event === 'group.opened' ? 'NEW' : m.data.to!))
      .filter((state, i, all) => i === 0 || all[i - 1] !== state);

  it('`headspace ops demo`: triaged to Con, approved through the API, a failing regression test then the fix committed, VERIFIED, RESOLVED, then REGRESSED from a later release — every transition on SSE in order', async () => {
    const run = await demo([]);
    expect(run.code, run.stderr).toBe(0);
    const result = run.result!;
    expect(result).toMatchObject({ project: 'ops-demo', outcome: 'REGRESSED', simulated: true });
    const lifecycle = ['NEW', 'ANALYSING', 'FIX_PROPOSED', 'FIX_IN_PROGRESS', 'FIX_COMMITTED', 'VERIFIED', 'RESOLVED', 'REGRESSED'];
    expect(result.states).toEqual(lifecycle);
    expect(run.stderr).toContain('approving as operator');
    expect(run.stderr).toMatch(/ANALYSING\s+leon\s+\[simulated\] .*backend → con, auto-fixable/);
    expect(run.stderr).toContain('REGRESSED');

    // Every transition reached the SSE stream, in order (a regressed group is triaged again after it).
    await waitFor(() => statesOnStream(result.groupId).includes('REGRESSED'), { timeoutMs: 30_000, message: 'REGRESSED on the stream' });
    expect(statesOnStream(result.groupId).slice(0, lifecycle.length)).toEqual(lifecycle);

    // Triage routed it to the backend builder, and the fix went through the operator's approval.
    const g = await group(result.groupId);
    expect(g).toMatchObject({ domain: 'backend', persona: 'con' });
    const approval = await api<{ status: string; kind: string; decidedBy: string }>('GET', `/api/v1/teams/${TEAM}/approvals/${result.approvalId}`);
    expect(approval).toMatchObject({ kind: 'fix-approval', status: 'approved', decidedBy: 'operator' });

    // The run: Verner's test failed before the fix and passed after it; the fix is committed.
    const view = await api<{ phase: string; simulated: boolean; resultDir: string; tasks: Array<{ key: string; persona: string | null; status: string }> }>('GET', `/api/v1/teams/${TEAM}/runs/${result.runId}`);
    expect(view).toMatchObject({ phase: 'completed', simulated: true });
    expect(view.tasks.map((t) => [t.key, t.persona, t.status])).toEqual([
      ['REG', 'verner', 'merged'],
      ['FIX', 'con', 'merged'],
    ]);
    const committed = g.transitions.find((t) => t.type === 'group.fix-committed')!;
    expect(committed.details).toMatchObject({ runId: result.runId, regressionTest: 'test/regression-order-total.test.js' });
    const commit = String(committed.details.commit);
    const show = (path: string) => execFileSync('git', ['show', `${commit}:${path}`], { cwd: view.resultDir, encoding: 'utf8' });
    expect(show('test/regression-order-total.test.js')).toContain("orderTotal(findOrder('1002'))");
    expect(show('src/orders.js')).toContain('order.discount ? order.discount.percent : 0');
    const regressed = g.transitions.find((t) => t.type === 'group.regressed')!;
    expect(regressed.details).toMatchObject({ release: 'ops-demo-shop@1.1.0' });

    // Subscribers see the fix run as it happened: the webhook got every event of the run once, signed,
    // in stream order, ending with run.completed; the SDK replays the same events in the same order.
    type Received = { id: string; type: string; subject: string; hsstreamversion: string };
    const runEvents = (list: Received[]) => list.filter((e) => e.subject === `run-${result.runId}`);
    const hooked = await waitFor(
      () => {
        const got = receiver.delivered('/runs').map((r) => ({ request: r, event: JSON.parse(r.body) as Received }));
        return runEvents(got.map((g) => g.event)).some((e) => e.type === 'headspace.run.completed') && got;
      },
      { timeoutMs: 30_000, message: 'run.completed at the webhook' },
    );
    for (const { request } of hooked) expect(verifyWebhook(HOOK_SECRET, request.body, request.headers['headspace-signature'] as string).ok).toBe(true);
    const delivered = runEvents(hooked.map((g) => g.event));
    expect(delivered.map((e) => Number(e.hsstreamversion))).toEqual(delivered.map((_, i) => i + 1));
    expect(delivered.at(-1)!.type).toBe('headspace.run.completed');
    expect(delivered.map((e) => e.type)).toContain('headspace.run.regression-checked');

    const abort = new AbortController();
    const followed: HeadspaceEvent[] = [];
    for await (const event of followEvents({ url: baseUrl, token: h.adminToken, teams: [TEAM], types: ['run.*'], since: 'all', signal: abort.signal })) {
      if (event.subject === `run-${result.runId}`) followed.push(event);
      if (event.type === 'headspace.run.completed' && event.subject === `run-${result.runId}`) break;
    }
    abort.abort();
    expect(followed.map((e) => e.id)).toEqual(delivered.map((e) => e.id));
  });

  it('`headspace ops demo --deny`: the denied fix-approval leaves the group at FIX_PROPOSED and starts no run', async () => {
    // A project of that name without groups is the demo's once its settings are put right.
    await api('POST', '/api/v1/ops/projects', { project: 'ops-deny', repository: '/tmp/elsewhere', verifyWindowSeconds: 3_600 });
    const run = await demo(['--deny', '--project', 'ops-deny']);
    expect(run.code, run.stderr).toBe(0);
    expect(await api('GET', '/api/v1/ops/projects/ops-deny')).toMatchObject({ repository: demoApp, team: TEAM, testCommand: 'npm test', verifyWindowSeconds: 1 });
    const result = run.result!;
    expect(result).toMatchObject({ project: 'ops-deny', outcome: 'FIX_PROPOSED' });
    expect(run.stderr).toContain('denying as operator');
    // Leon has taken the denial in (its remediation row says so) and the group has not moved.
    await waitFor(
      async () => ((await h.db.pool.query(`SELECT approval_decision FROM ops_leon.remediations WHERE group_id = $1`, [result.groupId])).rows[0]?.approval_decision === 'deny' ? true : undefined),
      { timeoutMs: 30_000, message: 'Leon to record the denial' },
    );
    const g = await group(result.groupId);
    expect(g.state).toBe('FIX_PROPOSED');
    expect(g.transitions.map((t) => t.type)).not.toContain('group.fix-started');
    expect(statesOnStream(result.groupId)).toEqual(['NEW', 'ANALYSING', 'FIX_PROPOSED']);
  });

  it('a trusted project’s low-severity fix runs without an approval and ends RESOLVED', async () => {
    await api('POST', '/api/v1/teams', { name: TEAM }).catch((error: Error) => {
      if (!error.message.includes('409')) throw error;
    });
    await api('POST', '/api/v1/ops/projects', { project: 'ops-trusted', repository: demoApp, trusted: true, team: TEAM, testCommand: 'npm test', verifyWindowSeconds: 1 });
    const key = await api<{ publicKey: string }>('POST', '/api/v1/ops/projects/ops-trusted/keys', { label: 'spec' });
    // The demo's bug, caught and logged as a warning by the app: low severity.
    const res = await fetch(`${baseUrl}/api/v1/ops/projects/ops-trusted/exceptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-headspace-ingest-key': key.publicKey },
      body: JSON.stringify({
        type: 'TypeError',
        message: "Cannot read properties of undefined (reading 'percent')",
        level: 'warning',
        handled: true,
        platform: 'node',
        release: 'ops-demo-shop@1.0.0',
        frames: [
          { function: 'route', filename: 'server.js', absPath: join(demoApp, 'src', 'server.js'), lineno: 17, inApp: true },
          { function: 'orderTotal', filename: 'orders.js', absPath: join(demoApp, 'src', 'orders.js'), lineno: 16, inApp: true },
        ],
      }),
    });
    expect(res.status).toBe(202);
    const { groupId } = (await res.json()) as { groupId: string };

    const resolved = await waitFor(
      async () => {
        const g = await group(groupId);
        if (g.state === 'ESCALATED' || g.state === 'DISMISSED') throw new Error(`the group went ${g.state}: ${JSON.stringify(g.transitions)}`);
        return g.state === 'RESOLVED' ? g : undefined;
      },
      { timeoutMs: 420_000, intervalMs: 500, message: 'the trusted fix to be RESOLVED' },
    );
    expect(resolved.severity).toBe('warning');
    const proposed = resolved.transitions.find((t) => t.type === 'group.fix-proposed')!;
    expect(proposed.details).toMatchObject({ approvalSkipped: 'trusted' });
    expect(proposed.details.approvalId).toBeUndefined();
    const approvals = await api<{ items: Array<{ kind: string; payload: { groupId?: string } }> }>('GET', `/api/v1/teams/${TEAM}/approvals?status=all`);
    expect(approvals.items.filter((a) => a.payload.groupId === groupId)).toEqual([]);
    expect(statesOnStream(groupId)).toEqual(['NEW', 'ANALYSING', 'FIX_PROPOSED', 'FIX_IN_PROGRESS', 'FIX_COMMITTED', 'VERIFIED', 'RESOLVED']);
  });
});
