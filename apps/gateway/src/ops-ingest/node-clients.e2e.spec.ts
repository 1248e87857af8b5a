import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIngestHarness, type IngestHarness } from './testing/ingest-harness';

function runNode(script: string, env: Record<string, string>, args: string[] = [], onStdout?: (line: string) => void): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => onStdout?.(chunk.toString()));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/** Node apps in their own processes: the real @sentry/node SDK with a Headspace DSN, and the SDK-less example. */
describe('Node apps reporting to Headspace', () => {
  let h: IngestHarness;
  beforeAll(async () => {
    h = await startIngestHarness('gwsentrynode');
  });
  afterAll(async () => h?.close());

  it('reports handled errors, a captured message and an uncaught crash: grouped, with frames', async () => {
    const shop = await h.project('sdk-shop');
    const run = await runNode(join(__dirname, 'testing', 'sentry-node-app.mjs'), { SENTRY_DSN: shop.dsn });
    expect(run.code, run.stderr).toBe(1); // the uncaught error ends the app, as it would without the SDK
    expect(run.stderr).toContain("reading 'length'");

    const groups = await h.eventually('three groups', async () => {
      const found = await h.groups('sdk-shop');
      return found.length >= 3 && found.reduce((n, g) => n + g.count, 0) >= 4 ? found : undefined;
    });
    const byType = Object.fromEntries(groups.map((g) => [g.type, g]));
    expect(Object.keys(byType).sort()).toEqual(['CardMissingError', 'Message', 'TypeError']);
    // Two orders, two ids in the message, the same bug: one group counted twice.
    expect(byType.CardMissingError).toMatchObject({ count: 2, level: 'error', environments: ['e2e'], releases: ['sdk-app@1.0.0'] });
    expect(byType.Message).toMatchObject({ count: 1, level: 'warning' });
    expect(byType.TypeError.count).toBe(1);

    const crash = await h.group(byType.TypeError.groupId);
    const sample = crash.samples[0];
    expect(sample).toMatchObject({ type: 'TypeError', source: 'sentry-envelope', handled: false, platform: 'node' });
    // Innermost last: the app's own function, in-app, with its file and line.
    expect(sample.frames.at(-1)).toMatchObject({ function: 'settle', inApp: true, lineno: 30 });
    expect(sample.frames.at(-1)?.filename).toMatch(/sentry-node-app\.mjs$/);
    expect(sample.frames.some((f) => f.inApp === false)).toBe(true);

    const handled = await h.group(byType.CardMissingError.groupId);
    expect(handled.samples.map((s) => s.message).sort()).toEqual(['order 17 has no card on file', 'order 42 has no card on file']);
    expect(handled.samples[0].frames.at(-1)).toMatchObject({ function: 'chargeCard', inApp: true });
  });

  it('a wrong DSN key records nothing: the SDK is answered 401', async () => {
    const shop = await h.project('sdk-wrong-key');
    const before = await h.opsEventCount();
    const wrong = shop.dsn.replace(shop.publicKey, 'f'.repeat(32));
    const run = await runNode(join(__dirname, 'testing', 'sentry-node-app.mjs'), { SENTRY_DSN: wrong });
    expect(run.code).toBe(1);
    expect(await h.groups('sdk-wrong-key')).toEqual([]);
    expect(await h.opsEventCount()).toBe(before);
    const res = await fetch(`${h.baseUrl}/api/${shop.projectId}/store/?sentry_key=${'f'.repeat(32)}`, { method: 'POST', body: '{"message":"x"}' });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'OPS.INGEST_KEY_INVALID', field: 'sentry_key' });
  });

  it('the SDK-less example app (examples/ops/node) reports its crash before it exits', async () => {
    const shop = await h.project('node-plain');
    const port = await freePort();
    const script = join(__dirname, '..', '..', '..', '..', 'examples', 'ops', 'node', 'example-app.mjs');
    const env = { HEADSPACE_INGEST_URL: shop.plainUrl, HEADSPACE_INGEST_KEY: shop.publicKey };
    const run = runNode(script, env, ['--port', String(port)], (line) => {
      // Listening: ask for the order whose total crashes the process (the answer never comes).
      if (line.includes('listening')) void fetch(`http://127.0.0.1:${port}/orders/42`).catch(() => undefined);
    });
    const { code, stderr } = await run;
    expect(code, stderr).toBe(1);
    expect(stderr).not.toContain('report not sent');
    const [group] = await h.eventually('the crash group', async () => {
      const groups = await h.groups('node-plain');
      return groups.length ? groups : undefined;
    });
    expect(group).toMatchObject({ type: 'TypeError', level: 'fatal', count: 1, releases: ['orders@1.0.0'] });
    const sample = (await h.group(group.groupId)).samples[0];
    expect(sample).toMatchObject({ source: 'http', handled: false, platform: 'node' });
    expect(sample.frames.at(-1)).toMatchObject({ function: 'totalOf', inApp: true });
  });
});
