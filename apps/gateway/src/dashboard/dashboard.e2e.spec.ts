import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createIngestKey, createOpsProject, recordUsage } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { deleteNamespaceStreams, ensureChromium, waitFor } from '@headspace/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';
import { launchChromium, screenshot, seriousViolations, signIn } from './testing/browser';
import { ensureDashboardBuilt } from './testing/build-dashboard';
import { CuttingProxy } from '../stream/testing/cutting-proxy';
// The spec boots the real ops-leon beside the gateway; apps never import each other outside tests.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { AppModule as OpsLeonModule } from '../../../ops-leon/src/app.module';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SERVICE as OPS_LEON, configSchema as opsLeonConfig } from '../../../ops-leon/src/config';

const repo = resolve(__dirname, '../../../..');

/** In-page: records every status each persona card and every column each task is seen in. */
const RECORD_CHANGES = `(() => {
  window.notReloaded = true;
  window.seen = {};
  const note = (key, value) => {
    const list = (window.seen[key] ??= []);
    if (list[list.length - 1] !== value) list.push(value);
  };
  const scan = () => {
    document.querySelectorAll('[data-persona]').forEach((el) => note('persona:' + el.dataset.persona, el.dataset.status));
    document.querySelectorAll('[data-column] [data-task]').forEach((el) => note('task:' + el.dataset.task, el.closest('[data-column]').dataset.column));
  };
  new MutationObserver(scan).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
})()`;
const RECORDED = `({ seen: window.seen, notReloaded: window.notReloaded === true })`;
/** In-page: records every persona status text and every phase the run view shows. */
const RECORD_TEXTS = `(() => {
  window.notReloaded = true;
  window.texts = { status: [], phase: [] };
  const note = (list, value) => { if (value && list[list.length - 1] !== value) list.push(value); };
  const scan = () => {
    document.querySelectorAll('[data-persona] [data-testid="persona-status"]').forEach((el) => note(window.texts.status, el.closest('[data-persona]').dataset.persona + ': ' + el.textContent));
    document.querySelectorAll('[data-phase]').forEach((el) => note(window.texts.phase, el.dataset.phase));
  };
  new MutationObserver(scan).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  scan();
})()`;
const TEXTS = `({ texts: window.texts, notReloaded: window.notReloaded === true })`;
const TRACE_URL = 'https://grafana.example/explore?traceId={traceId}';
/** Laptop widths the views must fit without scrolling sideways. */
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 1024, height: 768 },
] as const;

describe('the dashboard in headless Chromium', () => {
  let h: GatewayHarness;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let baseUrl: string;
  let workspaces: string;
  let nc: NatsConnection;
  let operatorToken: string;
  let viewerToken: string;
  let leon: NestFastifyApplication | undefined;
  /** Shared with ops-leon, which the gateway harness does not boot. */
  const namespace = `dash-${randomBytes(4).toString('hex')}`;

  const api = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, token = h.adminToken) => {
    const res = await h.call({ method, url, ...(payload ? { payload } : {}) }, token);
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json() as Record<string, unknown>;
  };
  const newPage = async (token: string, path: string): Promise<Page> => {
    const page = await context.newPage();
    await signIn(page, baseUrl, token, path);
    return page;
  };
  const requestApproval = (team: string, summary: string) =>
    api('POST', `/api/v1/teams/${team}/approvals`, { kind: 'permission-request', requester: 'con', summary, payload: { command: 'npm publish' }, timeoutMs: 600_000 });

  /** A browser spec: skipped, with the reason printed, only where Chromium cannot be found or installed. */
  const test = (name: string, body: () => Promise<void>, timeoutMs?: number) =>
    it(name, async (ctx) => {
      if (!browser) return ctx.skip();
      await body();
    }, timeoutMs);

  beforeAll(async () => {
    await ensureDashboardBuilt();
    workspaces = await mkdtemp(join(tmpdir(), 'hs-dashboard-'));
    h = await startGatewayHarness({
      label: 'dashboard',
      orchestrator: true,
      costGovernor: true,
      env: {
        HS_NAMESPACE: namespace,
        HS_WORKSPACES_DIR: join(workspaces, 'runs'),
        HS_AGENT_HOME: join(workspaces, 'agents'),
        HS_SIMULATOR_SCENARIOS: join(repo, 'examples', 'scenarios', 'word-stats'),
        RUN_SWEEP_MS: '500',
        SESSION_SWEEP_MS: '500',
        HS_TRACE_URL_TEMPLATE: TRACE_URL,
      },
    });
    const leonEnv = { DATABASE_URL: h.db.url, NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', LOG_LEVEL: 'warn', HS_NAMESPACE: namespace, HS_OPS_TRIAGE: 'off' };
    leon = await createServiceApp(OpsLeonModule.forRoot(loadConfig(opsLeonConfig, leonEnv, OPS_LEON)), { bufferLogs: false });
    await leon.init();
    await h.http().listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(h.http().server.address() as { port: number }).port}`;
    operatorToken = await h.issueToken('operator', '*');
    viewerToken = await h.issueToken('viewer', '*');
    nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
    for (const team of ['crew', 'drop']) await api('POST', '/api/v1/teams', { name: team });
    // Long before the mailboxes view opens, and no member's: listed only by the team's inbox list.
    await api('POST', '/api/v1/teams/crew/inboxes', { memberId: 'crew-lead', role: 'lead' });
    const chromium = await ensureChromium();
    if (!chromium.installed) {
      console.warn(`SKIPPED dashboard browser specs: ${chromium.reason}`);
      return;
    }
    browser = await launchChromium(chromium.bin);
    context = await browser.newContext({ viewport: WIDTHS[0] });
  }, 180_000);

  // A failed test leaves its pages open, and their streams count against the token's stream limit.
  afterEach(async () => {
    if (context) for (const page of context.pages()) await page.close();
  });

  afterAll(async () => {
    await browser?.close();
    await leon?.close();
    if (nc) await deleteNamespaceStreams(nc, namespace).finally(() => nc.close());
    await h?.close();
    if (workspaces) await rm(workspaces, { recursive: true, force: true });
  });

  it('serves the SPA at / and its client routes, hashed assets immutable and index.html revalidated, without shadowing the API', async () => {
    const index = await fetch(`${baseUrl}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(asset).toBeDefined();
    const js = await fetch(`${baseUrl}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const deepLink = await fetch(`${baseUrl}/tasks?team=crew`);
    expect(deepLink.status).toBe(200);
    expect(await deepLink.text()).toBe(html);

    const unknownApi = await fetch(`${baseUrl}/api/v1/no-such-route`);
    expect(unknownApi.status).toBe(404);
    expect(unknownApi.headers.get('content-type')).toContain('application/problem+json');
    expect((await fetch(`${baseUrl}/health/live`)).status).toBe(200);
    const config = await fetch(`${baseUrl}/dashboard-config.json`);
    expect(await config.json()).toEqual({ traceUrlTemplate: TRACE_URL });
    expect((await fetch(`${baseUrl}/api/v1/teams/known`)).status).toBe(401);
  });

  test('signs in with a bearer token kept in session storage, and says so when a token is refused', async () => {
    const page = await context.newPage();
    await page.goto(`${baseUrl}/?team=crew`);
    await page.getByLabel('API token').fill('hst_not_a_real_token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('unknown or revoked');

    await page.getByLabel('API token').fill(operatorToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('[data-testid="connection"][data-state="live"]').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('headspace.token'))).toBe(operatorToken);
    expect(await page.getByTestId('role').textContent()).toBe('operator');
    await page.reload();
    await page.locator('[data-testid="connection"][data-state="live"]').waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Team');
    await page.close();
  });

  test('approves a pending approval with a click: it leaves the queue and the API shows it approved with the reason', async () => {
    const page = await newPage(operatorToken, '/approvals?team=crew');
    const { approvalId } = (await requestApproval('crew', 'Con wants to run npm publish')) as { approvalId: string };
    const card = page.locator(`[data-approval="${approvalId}"]`);
    await card.waitFor();
    await card.getByLabel('Reason (optional)').fill('release day');
    await card.getByRole('button', { name: 'Approve' }).click();
    await card.waitFor({ state: 'detached' });
    const answered = await api('GET', `/api/v1/teams/crew/approvals/${approvalId}`);
    expect(answered).toMatchObject({ status: 'approved', decision: 'approve', reason: 'release day' });
    await page.close();
  });

  test('a viewer token sees the same pending approval but no action buttons anywhere', async () => {
    await requestApproval('crew', 'Con wants to delete the staging database');
    const page = await newPage(viewerToken, '/approvals?team=crew');
    await page.locator('main [data-approval]').getByText('Con wants to delete the staging database').waitFor();
    expect(await page.getByTestId('role').textContent()).toBe('viewer');
    for (const name of ['Approve', 'Deny', 'Resume']) expect(await page.getByRole('button', { name }).count()).toBe(0);
    expect(await page.locator('main button').count()).toBe(0);
    await page.close();
  });

  test('a dropped SSE connection resumes with Last-Event-ID and no event is lost or shown twice', async () => {
    const proxy = await CuttingProxy.start(new URL(baseUrl), { cutOnly: (line) => line.startsWith('GET /api/v1/stream') });
    try {
      const page = await context.newPage();
      await signIn(page, proxy.url, operatorToken, '/tasks?team=drop');
      const feed = page.locator('.activity [data-event-type="task.created"]');
      await api('POST', '/api/v1/teams/drop/tasks', { id: 'cut-0', subject: 'Seen before the cut' });
      await expect.poll(() => feed.count()).toBe(1);
      proxy.cutMidFrame();
      await api('POST', '/api/v1/teams/drop/tasks', { id: 'cut-1', subject: 'Sent while the connection is cut' });
      await waitFor(() => proxy.cuts === 1, { message: 'the proxy to cut the stream mid-event' });
      for (const id of ['cut-2', 'cut-3']) await api('POST', '/api/v1/teams/drop/tasks', { id, subject: `Sent during the gap (${id})` });
      await waitFor(() => proxy.cuttableRequests.length === 2, { timeoutMs: 20_000, message: 'the browser to reconnect the stream' });
      expect(proxy.cuttableRequests[1]).toMatch(/^last-event-id: v1:/im);
      await expect.poll(() => feed.count(), { timeout: 20_000 }).toBe(4);
      await page.locator('[data-testid="connection"][data-state="live"]').waitFor();
      for (const id of ['cut-0', 'cut-1', 'cut-2', 'cut-3']) await page.locator(`[data-column="pending"] [data-task="${id}"]`).waitFor();
      expect(await feed.count()).toBe(4);
      await page.close();
    } finally {
      await proxy.close();
    }
  });

  test('a budget crossing 80% shows the downgrade live, spend over time by persona and by model, and past 95% the pause, on the budgets view and the team overview', async () => {
    await api('PUT', '/api/v1/budgets', { scope: { kind: 'team', team: 'crew' }, limitUsd: '10.00', setBy: 'ops' });
    const page = await newPage(operatorToken, '/budgets?team=crew');
    await page.locator('[data-budget-status="active"][data-warned="false"]').waitFor();
    const attribution = { sessionId: 'sess-crew-con', persona: 'con', team: 'crew', project: 'crew-proj', surface: 'cli' as const };
    // haiku 4.5: 5 µ$ per output token, so 8.5 M µ$ = 85% of $10.
    await request(nc, recordUsage, { attribution, model: 'haiku', tokens: { inputTokens: 0, outputTokens: 8_500_000 / 5 } }, { timeoutMs: 30_000 });
    await page.getByTestId('budget-downgrade').waitFor({ timeout: 20_000 });
    await page.locator('[data-budget-event="budget.threshold-crossed"]').waitFor();
    expect(await page.locator('[data-budget-event="budget.threshold-crossed"]').textContent()).toContain('downgrade');
    expect(await page.getByRole('meter', { name: 'Budget used' }).getAttribute('aria-valuenow')).toBe('85');
    // Spend over time, by persona and by model, drawn from the usage events.
    await page.locator('[data-chart="by-persona"] path[data-series="con"]').waitFor();
    await page.locator('[data-chart="by-model"] path[data-series]').first().waitFor();
    expect(await page.locator('[data-chart="by-persona"] figcaption').textContent()).toContain('con $8.50');

    // Past 95%: the budget pauses, the pause is listed, and the team overview shows who it holds.
    await api('POST', '/api/v1/personas', { personaId: 'pat', name: 'Pat', pools: ['backend'] });
    await request(nc, recordUsage, { attribution, model: 'haiku', tokens: { inputTokens: 0, outputTokens: 1_200_000 / 5 } }, { timeoutMs: 30_000 });
    await page.locator('[data-budget-event="budget.paused"]').waitFor({ timeout: 20_000 });
    await page.locator('[data-budget-status="paused"]').waitFor();
    const team = await newPage(operatorToken, '/?team=crew');
    await team.locator('[data-persona="pat"][data-status="paused"]').getByText('paused by budget').waitFor();
    await team.close();
    await page.close();
  });

  test('mailboxes list every inbox of the team and show a message between personas live, with the unread count', async () => {
    const page = await newPage(operatorToken, '/mailboxes?team=crew');
    for (const memberId of ['al', 'con']) await api('POST', '/api/v1/teams/crew/inboxes', { memberId, role: 'member' });
    await api('POST', '/api/v1/teams/crew/messages', { from: 'al', type: 'message', to: 'con', body: 'The checkout test fails on an empty cart', summary: 'The checkout test fails on empty carts' });
    const inbox = page.locator('[data-inbox="con"]');
    await inbox.getByLabel('1 unread').waitFor({ timeout: 20_000 });
    await inbox.getByRole('button', { name: 'con' }).click();
    await page.getByRole('region', { name: 'Messages of con' }).getByText('The checkout test fails on an empty cart').waitFor();
    // The lead's inbox, opened in beforeAll and no member's, is listed too (with whatever it holds by now).
    await page.locator('[data-inbox="crew-lead"][data-role="lead"]').getByLabel(/^\d+ unread$/).waitFor();
    await page.close();
  });

  test('a Leon exception appears live with its events, trace link and fix lifecycle, and dismissing it from its detail moves the lifecycle', async () => {
    await request(nc, createOpsProject, { project: 'shop', repository: '/tmp/shop', actor: 'spec' });
    const { publicKey } = await request(nc, createIngestKey, { project: 'shop', actor: 'spec' });
    const page = await newPage(operatorToken, '/exceptions?team=crew');
    await page.getByText('No exceptions').waitFor();
    const report = await fetch(`${baseUrl}/api/v1/ops/projects/shop/exceptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-headspace-ingest-key': publicKey },
      body: JSON.stringify({ type: 'TypeError', message: "Cannot read properties of undefined (reading 'total')", stack: 'TypeError: boom\n    at checkout (/srv/shop/cart.js:42:7)' }),
    });
    expect(report.status).toBeLessThan(300);
    const group = page.locator('[data-group][data-state="NEW"]');
    await group.waitFor({ timeout: 20_000 });
    await group.getByRole('button').click();
    await expect.poll(() => page.getByTestId('group-state').textContent()).toBe('NEW');
    await page.locator('[data-sample]').getByText("Cannot read properties of undefined (reading 'total')").waitFor();
    await page.getByRole('list', { name: 'Fix lifecycle' }).locator('[aria-current="step"]').getByText('new').waitFor();
    const trace = page.getByRole('link', { name: 'Trace of the first report' });
    await trace.waitFor({ timeout: 20_000 });
    expect(await trace.getAttribute('href')).toMatch(/^https:\/\/grafana\.example\/explore\?traceId=[0-9a-f]{32}$/);
    const actions = page.getByRole('group', { name: 'Group actions' });
    await actions.getByLabel('Reason (needed to dismiss)').fill('a test double, not a real shop');
    await actions.getByRole('button', { name: 'dismiss' }).click();
    await expect.poll(() => page.getByTestId('group-state').textContent(), { timeout: 20_000 }).toBe('DISMISSED');
    await page.locator('[data-group][data-state="DISMISSED"]').waitFor();
    await page.getByText(/NEW → DISMISSED by .*: a test double, not a real shop/).waitFor();
    await page.close();

    const viewer = await newPage(viewerToken, '/exceptions?team=crew');
    await viewer.locator('[data-group]').getByRole('button').click();
    await viewer.getByTestId('group-state').waitFor();
    expect(await viewer.getByRole('group', { name: 'Group actions' }).count()).toBe(0);
    expect(await viewer.locator('main button', { hasText: /^(fix|resolve|dismiss|escalate|reopen)$/ }).count()).toBe(0);
    await viewer.close();
  });

  test('follows the example run live: personas work then rest, tasks move across the board, the summary appears, all without a reload', async () => {
    const pages = { team: await newPage(operatorToken, '/?team=word-stats'), board: await newPage(operatorToken, '/tasks?team=word-stats'), run: await newPage(operatorToken, '/run?team=word-stats') };
    for (const page of Object.values(pages)) {
      await page.evaluate(RECORD_CHANGES);
    }
    const goal = await readFile(join(repo, 'examples', 'word-stats', 'GOAL.md'), 'utf8');
    const { runId } = (await api('POST', '/api/v1/teams/word-stats/runs', { goal, source: join(repo, 'examples', 'word-stats'), mode: 'v3', operator: 'auto' })) as { runId: string };

    const summary = pages.run.getByTestId('run-summary');
    await summary.waitFor({ timeout: 240_000 });
    expect(await summary.textContent()).toContain('done');
    expect(await pages.run.locator('[data-run-task]').count()).toBe(3);
    await expect.poll(() => pages.board.locator('[data-column="completed"] [data-task]').count(), { timeout: 20_000 }).toBe(3);

    const seen = (page: Page) => page.evaluate(RECORDED) as Promise<{ seen: Record<string, string[]>; notReloaded: boolean }>;
    const team = await seen(pages.team);
    const board = await seen(pages.board);
    expect(team.notReloaded && board.notReloaded && (await seen(pages.run)).notReloaded).toBe(true);
    const personaHistories = Object.entries(team.seen).filter(([k]) => k.startsWith('persona:'));
    expect(personaHistories.some(([, statuses]) => statuses.includes('working') && statuses.at(-1) === 'idle')).toBe(true);
    const t1 = board.seen[`task:${runId}-t1`.toLowerCase()];
    expect(t1).toEqual(expect.arrayContaining(['claimed', 'completed']));
    expect(t1.at(-1)).toBe('completed');
    for (const page of Object.values(pages)) await page.close();
  }, 300_000);

  test('approves Gavin’s plan with a click and the run goes on to build and complete live; the run view shows its sessions, turns, tool calls, changes, QA and review reports and trace links', async () => {
    const team = 'word-stats-v2';
    const goal = await readFile(join(repo, 'examples', 'word-stats', 'GOAL.md'), 'utf8');
    const { runId } = (await api('POST', `/api/v1/teams/${team}/runs`, { goal, source: join(repo, 'examples', 'word-stats'), mode: 'v2', operator: 'interactive' })) as { runId: string };
    const run = await newPage(operatorToken, `/run?team=${team}`);
    const overview = await newPage(operatorToken, `/?team=${team}`);
    for (const page of [run, overview]) await page.evaluate(RECORD_TEXTS);
    const view = () => api('GET', `/api/v1/teams/${team}/runs/${runId}`);
    await waitFor(async () => (await view()).waitingFor === 'acceptance of the spec', { timeoutMs: 120_000, message: 'the spec to wait for the operator' });
    await api('POST', `/api/v1/teams/${team}/runs/${runId}/answer`, { kind: 'spec', accept: true });

    const approvals = await newPage(operatorToken, `/approvals?team=${team}`);
    const plan = approvals.locator('[data-approval-kind="plan-approval"]');
    await plan.waitFor({ timeout: 120_000 });
    expect(await plan.locator('[data-plan-task]').count()).toBeGreaterThan(0);
    await overview.locator('[data-persona="gavin"][data-status="waiting"]').getByText('waiting for approval').waitFor({ timeout: 20_000 });
    expect(await run.locator('ol.phases').getAttribute('data-phase')).toBe('tasks-review');
    await plan.getByRole('button', { name: 'Approve' }).click();
    await plan.waitFor({ state: 'detached' });

    const summary = run.getByTestId('run-summary');
    await summary.waitFor({ timeout: 240_000 });
    expect(await summary.textContent()).toContain('done');
    const phases = (await run.evaluate(TEXTS)) as { texts: { phase: string[] }; notReloaded: boolean };
    expect(phases.notReloaded).toBe(true);
    const order = ['tasks-review', 'execution', 'completed'].map((p) => phases.texts.phase.indexOf(p));
    expect(order.every((i, n) => i >= 0 && (n === 0 || i > order[n - 1]))).toBe(true);

    // Sessions with their turns and tool calls, the merged changes, Verner's and Robbo's reports: from the run's events.
    await expect.poll(() => run.locator('[data-merge]').count(), { timeout: 20_000 }).toBeGreaterThan(0);
    expect(await run.locator('[data-session]').count()).toBeGreaterThanOrEqual(3);
    // Each session says how its model and effort were chosen (the governor's routing, recorded on run.session-started).
    expect(await run.locator('[data-session] [data-routing]').count()).toBe(await run.locator('[data-session]').count());
    expect(await run.locator('[data-session] [data-routing]').first().textContent()).toMatch(/^claude-[\w.-]+ · (quick|standard|deep) effort · (routed|pinned by the operator|pinned by its agent|default)/);
    expect(await run.locator('[data-session] [data-turn]').count()).toBeGreaterThan(0);
    expect(await run.locator('[data-session] [data-tool-call]').count()).toBeGreaterThan(0);
    expect((await run.locator('[data-qa-round] .report-body').first().textContent())?.trim()).not.toBe('');
    expect((await run.locator('[data-review] .report-body').first().textContent())?.trim()).not.toBe('');
    const runTrace = await run.getByRole('link', { name: 'Trace of the run' }).getAttribute('href');
    expect(runTrace).toMatch(/^https:\/\/grafana\.example\/explore\?traceId=[0-9a-f]{32}$/);
    expect(await run.locator('[data-session] a[data-trace]').count()).toBeGreaterThan(0);

    // A merge's diff, read from the run's checkout on demand; only the run's own merge commits are shown.
    const diff = run.locator('[data-merge] details[data-diff]').first();
    await diff.locator('summary').click();
    await expect.poll(() => diff.locator('.patch').textContent(), { timeout: 20_000 }).toMatch(/^diff --git a\/\S+ b\/\S+/);
    expect(await diff.locator('.diff-files li').count()).toBeGreaterThan(0);
    const diffOf = (commit: string) => h.call({ method: 'GET', url: `/api/v1/teams/${team}/runs/${runId}/diff?commit=${commit}` }, viewerToken);
    const notMerged = await diffOf('0123456789abcdef0123456789abcdef01234567');
    expect(notMerged.statusCode).toBe(404);
    expect(notMerged.json()).toMatchObject({ code: 'RUN.NOT_FOUND' });
    const malformed = await diffOf('HEAD~1');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.body).toContain('commit');

    const statuses = (await overview.evaluate(TEXTS)) as { texts: { status: string[] }; notReloaded: boolean };
    expect(statuses.notReloaded).toBe(true);
    expect(statuses.texts.status).toContain('gavin: waiting for approval');
    expect(statuses.texts.status.some((t) => /: working on .+ \(turn \d+\)$/.test(t))).toBe(true);
    for (const page of [run, overview, approvals]) await page.close();
  }, 360_000);

  test('every view has no serious or critical axe-core violations, light and dark, fits laptop widths without scrolling sideways, and is screenshotted', async () => {
    const page = await newPage(operatorToken, '/?team=word-stats');
    for (const size of WIDTHS) {
      await page.setViewportSize(size);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const [name, path] of [
          ['team', '/'],
          ['tasks', '/tasks'],
          ['run', '/run'],
          ['approvals', '/approvals'],
          ['budgets', '/budgets'],
          ['exceptions', '/exceptions'],
          ['mailboxes', '/mailboxes'],
        ] as const) {
          await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: name === 'team' ? 'Team' : name[0].toUpperCase() + name.slice(1) }).click();
          await page.waitForURL(`**${path}?team=word-stats`);
          await page.locator('main [aria-busy="true"]').waitFor({ state: 'detached' });
          if (name === 'run') await page.locator('[data-session]').first().waitFor();
          const where = { view: name, scheme, width: size.width };
          expect({ ...where, violations: await seriousViolations(page) }).toEqual({ ...where, violations: [] });
          const overflow = (await page.evaluate('({ scroll: document.scrollingElement.scrollWidth, inner: innerWidth })')) as { scroll: number; inner: number };
          expect({ ...where, fits: overflow.scroll <= overflow.inner }).toEqual({ ...where, fits: true });
          await screenshot(page, `dashboard-${name}-${scheme}-${size.width}`);
        }
      }
    }
    await page.close();
  }, 180_000);
});
