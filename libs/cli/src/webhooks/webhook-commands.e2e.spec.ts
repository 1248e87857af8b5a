import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { verifyWebhook } from '@headspace/contracts';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The CLI's end-to-end test runs the CLI against the real gateway and team-manager, booted in-process.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startGatewayHarness, type GatewayHarness } from '../../../../apps/gateway/src/testing/gateway-harness';
// eslint-disable-next-line @nx/enforce-module-boundaries
import { WebhookReceiver } from '../../../../apps/gateway/src/webhooks/testing/webhook-receiver';

const repo = resolve(__dirname, '../../../..');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `headspace webhooks …` end to end: the CLI in a child process, the gateway and team-manager with real PostgreSQL and NATS. */
describe('headspace webhooks against the gateway', { timeout: 180_000 }, () => {
  const hookSecret = `whsec_${randomBytes(16).toString('hex')}`;
  const configFile = join(mkdtempSync(join(tmpdir(), 'hs-cli-hooks-')), 'config.json');
  const receiver = new WebhookReceiver();
  let h: GatewayHarness;
  let baseUrl = '';

  const cli = (args: string[]): Promise<Run> =>
    new Promise((done) => {
      execFile(
        process.execPath,
        ['-r', '@swc-node/register', join(repo, 'libs/cli/src/main.ts'), ...args],
        {
          cwd: repo,
          env: { ...process.env, SWC_NODE_PROJECT: join(repo, 'tsconfig.json'), HEADSPACE_CONFIG: configFile, HEADSPACE_URL: baseUrl, HEADSPACE_TOKEN: h.adminToken, HOOK_SECRET: hookSecret, NO_COLOR: '1' },
          timeout: 60_000,
        },
        (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  const json = async <T>(args: string[]) => {
    const run = await cli([...args, '--json']);
    expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: expect.any(String) });
    return JSON.parse(run.stdout) as T;
  };

  beforeAll(async () => {
    await receiver.start();
    h = await startGatewayHarness({ label: 'clihooks', env: { HS_WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'), HS_WEBHOOK_POLL_MS: '20' } });
    await h.http().listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(h.http().server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await h?.close();
    await receiver.stop();
  });

  it('creates, lists, disables and enables a subscription, shows its deliveries, redelivers, backfills and deletes it', async () => {
    const created = await json<{ id: string; secret?: string }>(['webhooks', 'create', `${receiver.url}/cli`, '--event', 'team.*', '--team', 'clihooks', '--secret-env', 'HOOK_SECRET']);
    expect(created.secret).toBeUndefined();
    expect((await json<Array<{ id: string }>>(['webhooks', 'list'])).map((w) => w.id)).toEqual([created.id]);
    expect(await json(['webhooks', 'disable', created.id])).toMatchObject({ enabled: false });
    expect(await json(['webhooks', 'enable', created.id])).toMatchObject({ enabled: true });

    expect((await h.call({ method: 'POST', url: '/api/v1/teams', payload: { name: 'clihooks' } }, h.adminToken)).statusCode).toBe(201);
    const [delivered] = await waitFor(() => receiver.delivered('/cli').length > 0 && receiver.delivered('/cli'), { message: 'team.created at the receiver' });
    expect(verifyWebhook(hookSecret, delivered!.body, delivered!.headers['headspace-signature'] as string).ok).toBe(true);

    // The receiver can answer before the sender records the attempt.
    const deliveries = await waitFor(
      async () => {
        const list = await json<Array<{ deliveryId: string; state: string; responseStatus: number }>>(['webhooks', 'deliveries', created.id]);
        return list[0]?.state === 'succeeded' && list;
      },
      { message: 'the delivery recorded as succeeded' },
    );
    expect(deliveries).toEqual([expect.objectContaining({ state: 'succeeded', responseStatus: 200 })]);
    await json(['webhooks', 'redeliver', created.id, deliveries[0]!.deliveryId]);
    expect(await json(['webhooks', 'backfill', created.id, '--since', '2000-01-01T00:00:00Z'])).toMatchObject({ scheduled: 1 });
    await waitFor(() => receiver.delivered('/cli').length === 3, { message: 'the redelivery and the backfill' });

    const bad = await cli(['webhooks', 'create', 'ftp://example.test/x', '--event', 'team.*']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('url');

    await json(['webhooks', 'delete', created.id]);
    expect(await json(['webhooks', 'list'])).toEqual([]);
  });
});
