import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { verifyWebhook } from '@headspace/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The CLI's end-to-end test runs the CLI against the real gateway and ops-leon, booted in-process.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startIngestHarness, type IngestHarness } from '../../../../apps/gateway/src/ops-ingest/testing/ingest-harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { SseTestClient } from '../../../../apps/gateway/src/stream/testing/sse-test-client';

const repo = resolve(__dirname, '../../../..');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `headspace ops …` end to end: the CLI (its TypeScript sources, as bin/headspace.js runs them without
 * a build) in a child process, the gateway and ops-leon with real PostgreSQL and NATS. An exception
 * ingested through the gateway opens a group; its lifecycle reaches a signed webhook and the SSE stream.
 */
describe('headspace ops against the gateway and Leon', { timeout: 180_000 }, () => {
  const hookSecret = `whsec_${randomBytes(16).toString('hex')}`;
  const configFile = join(mkdtempSync(join(tmpdir(), 'hs-cli-ops-')), 'config.json');
  let h: IngestHarness;
  let hook: Server;
  let hookUrl: string;
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];

  const cli = (args: string[]): Promise<Run> =>
    new Promise((done) => {
      execFile(
        process.execPath,
        ['-r', '@swc-node/register', join(repo, 'libs/cli/src/main.ts'), ...args],
        {
          cwd: repo,
          env: { ...process.env, SWC_NODE_PROJECT: join(repo, 'tsconfig.json'), HEADSPACE_CONFIG: configFile, HEADSPACE_URL: h.baseUrl, HEADSPACE_TOKEN: h.adminToken, HOOK_SECRET: hookSecret, NO_COLOR: '1' },
          timeout: 60_000,
        },
        (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  const ok = async (args: string[]) => {
    const run = await cli(args);
    expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: expect.any(String) });
    return run;
  };
  const json = async <T>(args: string[]) => JSON.parse((await ok([...args, '--json'])).stdout) as T;

  beforeAll(async () => {
    hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    hook.listen(0, '127.0.0.1');
    await once(hook, 'listening');
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/leon`;
    h = await startIngestHarness('cliops', { HS_OPS_SECRET_KEY: randomBytes(32).toString('hex'), HS_OPS_NOTIFY_POLL_MS: '50', HS_OPS_NOTIFY_BACKOFF_MS: '100' });
  }, 120_000);

  afterAll(async () => {
    hook?.close();
    await h?.close();
  });

  it('manages projects and keys, sets notifications, and follows a group from ingest to a dismissal on webhook and SSE', async () => {
    const created = await json<{ project: string; projectId: string }>(['ops', 'projects', 'create', 'shop', '--repository', '/tmp/shop']);
    expect(created.project).toBe('shop');
    expect((await json<Array<{ project: string }>>(['ops', 'projects', 'list'])).map((p) => p.project)).toContain('shop');
    expect(await json<{ projectId: string }>(['ops', 'projects', 'show', 'shop'])).toMatchObject({ projectId: created.projectId, team: null, testCommand: 'npm test', verifyWindowSeconds: 3_600 });
    await json(['ops', 'projects', 'update', 'shop', '--team', 'red', '--test-command', 'node --test', '--verify-window', '30m', '--trusted']);
    expect(await json(['ops', 'projects', 'show', 'shop'])).toMatchObject({ team: 'red', testCommand: 'node --test', verifyWindowSeconds: 1_800, trusted: true });
    await json(['ops', 'projects', 'update', 'shop', '--no-trusted']);
    expect(await json(['ops', 'projects', 'show', 'shop'])).toMatchObject({ team: 'red', trusted: false });

    const key = await json<{ keyId: string; publicKey: string; dsn: string }>(['ops', 'keys', 'create', 'shop', '--label', 'web']);
    expect(key.dsn).toBe(`http://${key.publicKey}@${new URL(h.baseUrl).host}/${created.projectId}`);
    const spare = await json<{ keyId: string }>(['ops', 'keys', 'create', 'shop', '--label', 'spare']);
    expect((await ok(['ops', 'keys', 'revoke', 'shop', spare.keyId, '--reason', 'unused'])).stdout).toContain(`Key ${spare.keyId} of shop revoked`);
    const keys = await json<Array<{ keyId: string; revokedAt: string | null }>>(['ops', 'keys', 'list', 'shop', '--all']);
    expect(keys.map((k) => [k.keyId, k.revokedAt !== null]).sort()).toEqual([[key.keyId, false], [spare.keyId, true]].sort());

    const set = await ok(['ops', 'notifications', 'set', 'shop', '--webhook', `id=ops,url=${hookUrl},secret=env:HOOK_SECRET`, '--email', 'oncall@example.com']);
    expect(set.stdout).toContain('Notifications of shop saved');
    expect(set.stdout + set.stderr).not.toContain(hookSecret);
    const shown = await json<{ webhooks: Array<{ id: string; url: string; secretSet: boolean }>; email: { to: string[]; minSeverity: string } }>(['ops', 'notifications', 'show', 'shop']);
    expect(shown).toMatchObject({ webhooks: [{ id: 'ops', url: hookUrl, secretSet: true }], email: { to: ['oncall@example.com'], minSeverity: 'error' } });
    expect(JSON.stringify(shown)).not.toContain(hookSecret);

    const sse = await SseTestClient.open(`${h.baseUrl}/api/v1/stream?since=all&types=group.*`, { authorization: `Bearer ${h.adminToken}` });
    const ingest = await fetch(`${h.baseUrl}/api/v1/ops/projects/shop/exceptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-headspace-ingest-key': key.publicKey },
      body: JSON.stringify({ type: 'KeyError', message: "'cart' missing for order 1234", level: 'error', frames: [{ module: 'shop.views', function: 'checkout', lineno: 42, inApp: true }] }),
    });
    expect(ingest.status).toBeLessThan(300);

    const groups = await h.eventually('the group', async () => {
      const rows = await json<Array<{ groupId: string; state: string }>>(['ops', 'groups', 'list', '--project', 'shop']);
      return rows.length ? rows : undefined;
    });
    expect(groups).toHaveLength(1);
    const { groupId } = groups[0];
    const shownGroup = await ok(['ops', 'groups', 'show', groupId]);
    expect(shownGroup.stdout).toContain('Stack');
    expect(shownGroup.stdout).toContain('at checkout (shop.views:42)');
    expect(shownGroup.stdout).toContain('Timeline');

    const dismissed = await json<{ state: string }>(['ops', 'groups', 'transition', groupId, 'dismiss', '--reason', 'known noise']);
    expect(dismissed.state).toBe('DISMISSED');
    const bad = await cli(['ops', 'groups', 'transition', groupId, 'dismiss']);
    expect(bad.code).not.toBe(0);

    // The webhook hears the group open and its dismissal, each signed with the project's secret.
    const bodies = await h.eventually('opened and dismissed on the webhook', async () => {
      const parsed = received.map((r) => JSON.parse(r.body) as { eventType: string; to: string; groupId: string });
      return parsed.some((b) => b.eventType === 'group.opened') && parsed.some((b) => b.eventType === 'group.dismissed') ? parsed : undefined;
    });
    expect(bodies.every((b) => b.groupId === groupId)).toBe(true);
    expect(bodies.find((b) => b.eventType === 'group.dismissed')?.to).toBe('DISMISSED');
    for (const r of received) {
      expect(verifyWebhook(hookSecret, r.body, r.headers['headspace-signature'] as string, { now: Math.floor(Date.now() / 1_000) }).ok).toBe(true);
    }
    // Every transition is on the SSE stream too, in order.
    await h.eventually('the dismissal on SSE', async () => (sse.messages.some((m) => m.event === 'group.dismissed') ? true : undefined));
    const onStream = sse.messages.map((m) => m.event).filter((e) => e === 'group.opened' || e === 'group.dismissed');
    expect(onStream).toEqual(['group.opened', 'group.dismissed']);
    sse.close();

    const deliveries = await h.eventually('deliveries done', async () => {
      const items = await json<Array<{ state: string; channel: string }>>(['ops', 'notifications', 'deliveries', 'shop']);
      return items.length >= 2 && items.every((d) => d.state !== 'pending') ? items : undefined;
    });
    expect(deliveries.filter((d) => d.channel === 'webhook').every((d) => d.state === 'succeeded')).toBe(true);
  });

  it('refuses bad notification settings with a clear reason and a usage error for a bad --webhook', async () => {
    const noSecret = await cli(['ops', 'notifications', 'set', 'shop', '--webhook', `id=other,url=${hookUrl}`]);
    expect(noSecret.code).toBe(2); // the API refused it (4xx)
    expect(noSecret.stderr).toContain('webhooks.0.secret');
    const badKey = await cli(['ops', 'notifications', 'set', 'shop', '--webhook', `id=x,uri=${hookUrl}`]);
    expect(badKey.code).toBe(1); // usage: caught before any request
    expect(badKey.stderr).toContain('"uri=');
    const unknown = await cli(['ops', 'notifications', 'show', 'nowhere']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('NOTIFICATION.SETTINGS_NOT_FOUND');
  });
});
