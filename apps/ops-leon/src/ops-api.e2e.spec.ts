import { randomBytes } from 'node:crypto';
import { ingestException } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { createServiceApp, loadConfig } from '@headspace/platform';
import { createTestDatabase, deleteNamespaceStreams, type TestDatabase } from '@headspace/testing';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The e2e spec boots the real services it exercises; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startGatewayHarness, type GatewayHarness } from '../../gateway/src/testing/gateway-harness';
import { AppModule } from './app.module';
import { SERVICE, configSchema } from './config';
import { GroupsProjection } from './groups/groups.projection';
import { ProjectsProjection } from './projects/projects.projection';
import { report } from './testing/ops-leon-harness';

/** Leon's REST surface through the real gateway: projects, keys, groups, the timeline and the operator's moves. */
describe('ops REST API through the gateway', () => {
  const namespace = `olapi-${randomBytes(3).toString('hex')}`;
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  let db: TestDatabase;
  let leon: NestFastifyApplication;
  let gw: GatewayHarness;
  let nc: NatsConnection;
  let operator: string;
  let viewer: string;
  const keys: Record<string, string> = {};

  const caughtUp = async () => {
    await leon.get(ProjectsProjection).runner.waitUntilCaughtUp();
    await leon.get(GroupsProjection).runner.waitUntilCaughtUp();
  };
  const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token: string, payload?: object) =>
    gw.call({ method, url, ...(payload ? { payload } : {}) }, token);
  const ingest = (project: string, over: Record<string, unknown> = {}) =>
    request(nc, ingestException, { project, publicKey: keys[project], report: report(over), receivedAt: new Date().toISOString() });

  beforeAll(async () => {
    db = await createTestDatabase('olapi');
    leon = await createServiceApp(AppModule.forRoot(loadConfig(configSchema, { DATABASE_URL: db.url, NATS_URL: natsUrl, LOG_LEVEL: 'warn', HS_NAMESPACE: namespace, HS_OPS_TRIAGE: 'off' }, SERVICE)), { bufferLogs: false });
    await leon.init();
    gw = await startGatewayHarness({ label: 'olapi', teamManager: false, db, env: { HS_NAMESPACE: namespace } });
    nc = await connect({ servers: natsUrl, name: `spec-${namespace}` });
    operator = await gw.issueToken('operator', '*');
    viewer = await gw.issueToken('viewer', '*');
    for (const project of ['shop', 'blog']) {
      expect((await api('POST', '/api/v1/ops/projects', gw.adminToken, { project, repository: `https://git.example.com/${project}.git`, environments: ['production'] })).statusCode).toBe(201);
      const key = await api('POST', `/api/v1/ops/projects/${project}/keys`, gw.adminToken, { label: 'prod' });
      expect(key.statusCode).toBe(201);
      keys[project] = key.json().publicKey;
    }
  }, 60_000);

  afterAll(async () => {
    await gw?.close(true);
    await leon?.close();
    await deleteNamespaceStreams(nc, namespace).catch(() => undefined);
    await nc?.close();
    await db?.drop();
  });

  it('creates, lists, reads and changes projects; a bad name is a 400 naming the field and writes nothing', async () => {
    const bad = await api('POST', '/api/v1/ops/projects', gw.adminToken, { project: 'Bad Name!', repository: '/srv/x' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('project');
    const taken = await api('POST', '/api/v1/ops/projects', gw.adminToken, { project: 'shop', repository: '/srv/x' });
    expect([taken.statusCode, taken.json().code]).toEqual([409, 'OPS.PROJECT_ALREADY_EXISTS']);
    expect((await api('POST', '/api/v1/ops/projects', viewer, { project: 'viewers', repository: '/srv/x' })).statusCode).toBe(403);

    const changed = await api('PATCH', '/api/v1/ops/projects/shop', operator, { trusted: true });
    expect(changed.json().project).toMatchObject({ project: 'shop', trusted: true, repository: 'https://git.example.com/shop.git' });
    await caughtUp();
    const list = await api('GET', '/api/v1/ops/projects?limit=1', viewer);
    expect(list.json()).toMatchObject({ items: [{ project: 'blog', projectId: expect.stringMatching(/^\d+$/), activeKeys: 1 }], nextCursor: expect.any(String) });
    const shop = await api('GET', '/api/v1/ops/projects/shop', viewer);
    expect(shop.json()).toMatchObject({ project: 'shop', trusted: true, activeKeys: 1, environments: ['production'] });
    expect((await api('GET', `/api/v1/ops/projects/${shop.json().projectId}`, viewer)).json().project).toBe('shop');
    expect((await api('GET', '/api/v1/ops/projects/nowhere', viewer)).statusCode).toBe(404);
  });

  it('lists keys without the key or its hash; only an admin makes or revokes them', async () => {
    expect((await api('POST', '/api/v1/ops/projects/blog/keys', operator, {})).statusCode).toBe(403);
    const made = (await api('POST', '/api/v1/ops/projects/blog/keys', gw.adminToken, { label: 'ci' })).json();
    expect(made).toMatchObject({ project: 'blog', keyId: expect.stringMatching(/^key_/), publicKey: expect.stringMatching(/^[0-9a-f]{32}$/), hint: made.publicKey.slice(0, 4) });
    expect((await api('DELETE', `/api/v1/ops/projects/blog/keys/${made.keyId}`, gw.adminToken)).statusCode).toBe(200);
    await caughtUp();
    const listed = await api('GET', '/api/v1/ops/projects/blog/keys?includeRevoked=true', viewer);
    expect(listed.json().items.map((k: { label: string; revokedAt: string | null }) => [k.label, k.revokedAt === null])).toEqual([['prod', true], ['ci', false]]);
    expect(listed.body).not.toContain(made.publicKey);
    expect(listed.body).not.toMatch(/[0-9a-f]{64}/);
  });

  it('lists groups with filters and sorts, paged by cursor, and shows a group with its events and timeline', async () => {
    for (let i = 0; i < 3; i++) await ingest('shop', { type: 'KeyError', message: `'sku-${i}'`, release: '2.0', environment: 'production' });
    await ingest('shop', { type: 'TimeoutError', message: 'upstream timed out after 3000ms', release: '2.1', environment: 'staging' });
    await ingest('blog', { type: 'TypeError', message: 'x is undefined' });
    await caughtUp();

    const byCount = (await api('GET', '/api/v1/ops/groups?project=shop&sort=count&limit=1', viewer)).json();
    expect(byCount.items.map((g: { type: string; count: number }) => [g.type, g.count])).toEqual([['KeyError', 3]]);
    const next = (await api('GET', `/api/v1/ops/groups?project=shop&sort=count&limit=1&cursor=${byCount.nextCursor}`, viewer)).json();
    expect(next).toMatchObject({ items: [{ type: 'TimeoutError', count: 1 }], nextCursor: null });
    expect((await api('GET', '/api/v1/ops/groups?environment=staging', viewer)).json().items.map((g: { type: string }) => g.type)).toEqual(['TimeoutError']);
    expect((await api('GET', '/api/v1/ops/groups?release=2.0&state=NEW', viewer)).json().items.map((g: { type: string }) => g.type)).toEqual(['KeyError']);
    expect((await api('GET', '/api/v1/ops/groups?state=DISMISSED', viewer)).json().items).toEqual([]);
    const bad = await api('GET', '/api/v1/ops/groups?state=OPEN', viewer);
    expect([bad.statusCode, bad.body.includes('state')]).toEqual([400, true]);
    expect((await api('GET', '/api/v1/ops/groups?cursor=bogus', viewer)).statusCode).toBe(400);

    const groupId = byCount.items[0].groupId as string;
    const group = (await api('GET', `/api/v1/ops/groups/${groupId}`, viewer)).json();
    expect(group).toMatchObject({ groupId, project: 'shop', state: 'NEW', title: '<str>', releases: ['2.0'], environments: ['production'] });
    expect(group.samples).toHaveLength(3);
    expect(group.samples[0]).toMatchObject({ type: 'KeyError', release: '2.0', frames: [{ function: 'handle' }, { function: 'loadOrder' }] });
    expect(group.transitions.map((t: { type: string }) => t.type)).toEqual(['group.opened']);
    expect((await api('GET', '/api/v1/ops/groups/grp_000000000000000000000000', viewer)).statusCode).toBe(404);
    expect((await api('GET', '/api/v1/ops/groups/not-a-group', viewer)).statusCode).toBe(400);
  });

  it('lets an operator move a group: illegal moves are 409 OPS.ILLEGAL_TRANSITION, a viewer is refused, the timeline records who and why', async () => {
    const { groupId } = await ingest('shop', { type: 'ValueError', message: 'bad value' });
    const url = `/api/v1/ops/groups/${groupId}/transitions`;
    expect((await api('POST', url, viewer, { action: 'escalate' })).statusCode).toBe(403);
    const noReason = await api('POST', url, operator, { action: 'dismiss' });
    expect([noReason.statusCode, noReason.body.includes('reason')]).toEqual([400, true]);
    expect((await api('POST', url, operator, { action: 'dismiss', reason: 'a crawler' })).json()).toMatchObject({ groupId, state: 'DISMISSED' });
    const again = await api('POST', url, operator, { action: 'escalate' });
    expect([again.statusCode, again.json().code]).toEqual([409, 'OPS.ILLEGAL_TRANSITION']);
    expect(again.json().detail).toContain('from DISMISSED to ESCALATED');
    expect((await api('POST', url, operator, { action: 'reopen' })).json()).toMatchObject({ state: 'NEW' });
    await caughtUp();
    const timeline = (await api('GET', url, viewer)).json();
    expect(timeline.transitions.map((t: { type: string; by: string; reason: string | null }) => [t.type, t.by, t.reason])).toEqual([
      ['group.opened', 'leon', null],
      ['group.dismissed', 'operator-token', 'a crawler'],
      ['group.reopened', 'operator-token', null],
    ]);
  });

  it("shows a project-scoped token only its projects' groups", async () => {
    const res = await api('POST', '/api/v1/tokens', gw.adminToken, { name: 'blog-viewer', role: 'viewer', teams: '*', projects: ['blog'] });
    const blogOnly = res.json().token as string;
    await caughtUp();
    expect((await api('GET', '/api/v1/ops/projects', blogOnly)).json().items.map((p: { project: string }) => p.project)).toEqual(['blog']);
    expect((await api('GET', '/api/v1/ops/groups', blogOnly)).statusCode).toBe(403);
    const shopGroups = (await api('GET', '/api/v1/ops/groups?project=shop', operator)).json().items;
    expect((await api('GET', `/api/v1/ops/groups/${shopGroups[0].groupId}`, blogOnly)).statusCode).toBe(404);
    expect((await api('GET', '/api/v1/ops/groups?project=blog', blogOnly)).json().items.map((g: { project: string }) => g.project)).toEqual(['blog']);
  });

  it('documents every ops operation in the OpenAPI document', async () => {
    const doc = (await gw.call({ method: 'GET', url: '/api/openapi.json' })).json();
    for (const path of ['/api/v1/ops/projects', '/api/v1/ops/projects/{project}', '/api/v1/ops/projects/{project}/keys', '/api/v1/ops/groups', '/api/v1/ops/groups/{groupId}', '/api/v1/ops/groups/{groupId}/transitions']) {
      expect(doc.paths[path], path).toBeDefined();
    }
  });
});
