import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';
import { setSubjectNamespace } from '@headspace/contracts';
import { deleteNamespaceStreams, findChromium } from '@headspace/testing';
import { benchDatabase, percentile, type BenchRow } from './bench-kit';
import { benchNats, launchService, type ServiceProcess } from './service-process';

/** The page's globals, typed here without the DOM library (the bench compiles for Node; strings would be eval, which the CSP refuses). */
type PageGlobals = { document: { querySelectorAll(selector: string): { length: number } }; arrivals: number[] };

/** The built SPA, beside the sources or beside the compiled bench (scripts/build.sh puts it there). */
const WEB_DIST = join(__dirname, '..', 'apps', 'gateway', 'web', 'dist');

/** Gzipped bytes of the JavaScript index.html loads before anything runs (entry + modulepreloads). */
export function initialJsGzipBytes(dir = WEB_DIST): number {
  const html = readFileSync(join(dir, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]);
  return scripts.reduce((sum, file) => sum + gzipSync(readFileSync(join(dir, file)), { level: 9 }).length, 0);
}

/**
 * The dashboard (issue 27): the initial JavaScript gzipped (target ≤ 200 KB); a board of 1,000
 * tasks from navigation start to 1,000 cards in the DOM (target < 1 s); and an event's latency from
 * its append (the event's `time`, same host clock) to its row in the page's activity feed, for tasks
 * created at a steady rate (target p99 < 200 ms). team-manager and the gateway run as real
 * processes; the page runs in headless Chromium.
 */
export async function benchDashboard(options: { quick: boolean }): Promise<BenchRow[]> {
  if (!existsSync(join(WEB_DIST, 'index.html'))) {
    console.error(`bench dashboard: ${WEB_DIST} has no build; run npm run build first`);
    return [];
  }
  const rows: BenchRow[] = [{ name: 'dashboard initial JS (gzip)', value: initialJsGzipBytes() / 1024, unit: 'KB', note: 'target ≤ 200 KB' }];
  const executablePath = findChromium();
  if (!executablePath) {
    console.error('bench dashboard: Chromium not found (apt-get install chromium, or CHROMIUM_PATH); browser rows skipped');
    return rows;
  }
  const tasks = 1_000;
  const events = options.quick ? 100 : 300;
  const namespace = `bench-dash-${randomBytes(3).toString('hex')}`;
  const db = await benchDatabase('dashboard');
  const nc = await benchNats();
  setSubjectNamespace(namespace);
  const services: ServiceProcess[] = [];
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  try {
    const adminToken = `hst_bench_${randomBytes(24).toString('base64url')}`;
    const env = { DATABASE_URL: db.url, HS_NAMESPACE: namespace, HS_RATE_LIMIT_MAX: '1000000', HS_RATE_LIMIT_ADDRESS_MAX: '1000000' };
    services.push(await launchService('team-manager', env));
    const gateway = await launchService('gateway', { ...env, HS_ADMIN_TOKEN: adminToken });
    services.push(gateway);
    const base = `http://127.0.0.1:${gateway.port}`;
    const api = async (path: string, body: unknown) => {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    };
    await api('/api/v1/teams', { name: 'board' });
    await api('/api/v1/teams', { name: 'live' });
    for (let i = 0; i < tasks; i += 100) {
      await api('/api/v1/teams/board/tasks/batch', { tasks: Array.from({ length: 100 }, (_, j) => ({ id: `t${i + j}`, subject: `Task ${i + j} of the board`, dependsOn: i + j > 0 ? [`t${i + j - 1}`] : [] })) });
    }

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(`sessionStorage.setItem('headspace.token', ${JSON.stringify(adminToken)})`);
    const renders: number[] = [];
    const afterData: number[] = [];
    for (let round = 0; round < (options.quick ? 3 : 5); round++) {
      const page = await context.newPage();
      await page.goto(`${base}/tasks?team=board`);
      await page
        .waitForFunction((n) => (globalThis as unknown as PageGlobals).document.querySelectorAll('[data-task]').length >= n, tasks, { timeout: 60_000, polling: 'raf' })
        .catch(async (error: Error) => {
          throw new Error(`${error.message}; the page shows ${await page.locator('[data-task]').count()} tasks: ${(await page.locator('main').textContent())?.slice(0, 300)}`);
        });
      const [now, loaded] = (await page.evaluate(`[performance.now(), performance.getEntriesByName('headspace:tasks-loaded').at(-1)?.startTime ?? NaN]`)) as [number, number];
      renders.push(now);
      afterData.push(now - loaded);
      await page.close();
    }
    renders.sort((a, b) => a - b);
    afterData.sort((a, b) => a - b);
    rows.push({ name: `dashboard board of ${tasks} tasks, data → DOM (median)`, value: percentile(afterData, 50), unit: 'ms', note: 'tasks fetched → every card in the DOM; target < 1,000 ms' });
    rows.push({ name: `dashboard board of ${tasks} tasks, navigation → DOM (median)`, value: percentile(renders, 50), unit: 'ms', note: 'with sign-in and fetching 1,000 tasks in 2 pages' });

    const page = await context.newPage();
    await page.goto(`${base}/tasks?team=live`);
    await page.locator('[data-testid="connection"][data-state="live"]').waitFor();
    await page.evaluate(`(() => {
      window.arrivals = [];
      new MutationObserver((records) => {
        const now = Date.now();
        for (const r of records) for (const node of r.addedNodes) {
          if (node.dataset && node.dataset.eventType === 'task.created') window.arrivals.push(now - Date.parse(node.querySelector('time').dateTime));
        }
      }).observe(document.querySelector('.activity') ?? document.body, { subtree: true, childList: true });
    })()`);
    for (let i = 0; i < events; i++) {
      await api('/api/v1/teams/live/tasks', { id: `e${i}`, subject: `Live task ${i}` });
      await sleep(50);
    }
    await page.waitForFunction((n) => (globalThis as unknown as PageGlobals).arrivals.length >= n, events, { timeout: 60_000 }).catch(() => undefined);
    const latencies = ((await page.evaluate('window.arrivals')) as number[]).sort((a, b) => a - b);
    rows.push({ name: `dashboard SSE event → DOM p50 (${latencies.length}/${events} events)`, value: percentile(latencies, 50), unit: 'ms' });
    rows.push({ name: 'dashboard SSE event → DOM p99', value: percentile(latencies, 99), unit: 'ms', note: 'append time → activity row; target < 200 ms' });
    return rows;
  } finally {
    await browser.close();
    for (const s of services.reverse()) await s.stop();
    await deleteNamespaceStreams(nc, namespace).finally(() => nc.close());
    await db.drop();
  }
}
