import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ensurePythonClients, freePort, type PythonClientsStatus } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIngestHarness, type IngestHarness } from './testing/ingest-harness';

const EXAMPLES = join(__dirname, '..', '..', '..', '..', 'examples', 'ops', 'python');

/** A Flask example app as a real process, answering on `port` once its /health says ok. */
async function startFlask(python: string, script: string, env: Record<string, string>): Promise<{ port: number; app: ChildProcess; output: () => string }> {
  const port = await freePort();
  const app = spawn(python, [join(EXAMPLES, script), '--port', String(port)], { cwd: EXAMPLES, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  app.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  app.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (app.exitCode !== null) throw new Error(`${script} exited: ${output}`);
    if ((await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined))?.status === 200) return { port, app, output: () => output };
    if (Date.now() > deadline) throw new Error(`${script} did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Python apps reporting their 500s: Debian's python3-sentry-sdk, and the stdlib handler of examples/ops/python. */
describe('Python Flask apps reporting to Headspace', () => {
  let python: PythonClientsStatus;
  let h: IngestHarness;
  const apps: ChildProcess[] = [];
  beforeAll(async () => {
    python = await ensurePythonClients();
    if (!python.available) console.warn(`SKIPPED Python client specs: ${python.reason}`);
    else if (!python.flask || !python.sentrySdk) console.warn(`SKIPPED Python client specs: ${python.python} lacks flask or sentry_sdk (apt-get install python3-flask python3-sentry-sdk)`);
    h = await startIngestHarness('gwpython');
  }, 600_000);
  afterAll(async () => {
    for (const app of apps) app.kill('SIGKILL');
    await h?.close();
  });
  const ready = () => python.available && python.flask && python.sentrySdk;

  it('a Flask app using sentry_sdk reports its 500 through the store endpoint, with frames', async (ctx) => {
    if (!ready() || !python.available) return ctx.skip();
    const project = await h.project('py-sentry');
    const flask = await startFlask(python.python, 'flask_sentry_app.py', { SENTRY_DSN: project.dsn });
    apps.push(flask.app);
    expect((await fetch(`http://127.0.0.1:${flask.port}/ratio/0`, { signal: AbortSignal.timeout(10_000) })).status).toBe(500);
    const [group] = await h.eventually('the ZeroDivisionError group', async () => {
      const groups = await h.groups('py-sentry');
      return groups.length ? groups : undefined;
    });
    expect(group).toMatchObject({ type: 'ZeroDivisionError', count: 1, environments: ['example'], releases: ['ratio@2.0.0'] });
    const sample = (await h.group(group.groupId)).samples[0];
    expect(sample).toMatchObject({ platform: 'python', handled: false, request: { method: 'GET' } });
    expect(sample.source).toMatch(/^sentry-(store|envelope)$/);
    expect(sample.frames.at(-1)).toMatchObject({ function: 'ratio', inApp: true });
    expect(sample.frames.at(-1)?.absPath).toMatch(/flask_sentry_app\.py$/);
  });

  it('a Flask app with the stdlib handler reports its 500 through the plain endpoint, with frames', async (ctx) => {
    if (!python.available) return ctx.skip();
    const project = await h.project('py-stdlib');
    const flask = await startFlask(python.python, 'flask_app.py', { HEADSPACE_INGEST_URL: project.plainUrl, HEADSPACE_INGEST_KEY: project.publicKey });
    apps.push(flask.app);
    for (const id of ['42', '43']) expect((await fetch(`http://127.0.0.1:${flask.port}/orders/${id}`, { signal: AbortSignal.timeout(10_000) })).status).toBe(500);
    const [group] = await h.eventually('the KeyError group, counted twice', async () => {
      const groups = await h.groups('py-stdlib');
      return groups.length && groups[0].count === 2 ? groups : undefined;
    });
    expect(group).toMatchObject({ type: 'KeyError', environments: ['example'], releases: ['shop@1.0.0'] });
    const sample = (await h.group(group.groupId)).samples[0];
    expect(sample).toMatchObject({ source: 'http', platform: 'python', handled: false, request: { method: 'GET' } });
    expect(sample.frames.at(-1)).toMatchObject({ function: 'order', inApp: true });
    expect(sample.frames.some((f) => f.inApp === false)).toBe(true);
    expect(flask.output()).not.toContain('report not sent');
  });
});
