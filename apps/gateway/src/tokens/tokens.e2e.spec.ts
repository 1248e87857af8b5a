import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

describe('API tokens: issued once in plaintext, stored hashed, revocable at once', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwtokens', teamManager: false });
  });
  afterAll(async () => h?.close());

  it('an admin issues a token that works, lists tokens without secrets, and a revoked token gets 401 at once', async () => {
    const created = await h.call(
      { method: 'POST', url: '/api/v1/tokens', payload: { name: 'ci', role: 'admin', teams: ['alpha', 'beta'] } },
      h.adminToken,
    );
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({ id: expect.any(String), name: 'ci', role: 'admin', teams: ['alpha', 'beta'], projects: '*' });
    expect(body.token).toMatch(/^hst_[A-Za-z0-9_-]{43}$/);

    const listed = await h.call({ method: 'GET', url: '/api/v1/tokens' }, body.token);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().items.map((t: { id: string }) => t.id)).toContain(body.id);
    expect(listed.body).not.toContain(body.token);
    expect(listed.body).not.toContain(h.adminToken);
    expect(Object.keys(listed.json().items[0]).sort()).toEqual(['createdAt', 'id', 'lastUsedAt', 'name', 'projects', 'revokedAt', 'role', 'teams']);

    const used = await waitFor(async () => {
      const items = (await h.call({ method: 'GET', url: '/api/v1/tokens' }, h.adminToken)).json().items as Array<{ id: string; lastUsedAt: string | null }>;
      return items.find((t) => t.id === body.id && t.lastUsedAt !== null);
    });
    expect(used.lastUsedAt).toEqual(expect.any(String));

    const revoked = await h.call({ method: 'DELETE', url: `/api/v1/tokens/${body.id}` }, h.adminToken);
    expect(revoked.statusCode).toBe(204);
    const after = await h.call({ method: 'GET', url: '/api/v1/tokens' }, body.token);
    expect(after.statusCode).toBe(401);
    expect(after.json()).toMatchObject({ code: 'AUTH.UNAUTHENTICATED' });
  });

  it('the database holds the SHA-256 of a token, never the token', async () => {
    const { token, id } = (
      await h.call({ method: 'POST', url: '/api/v1/tokens', payload: { name: 'hash-check', role: 'viewer', teams: '*' } }, h.adminToken)
    ).json();
    const { rows } = await h.db.pool.query(`SELECT token_hash, to_jsonb(t)::text AS whole FROM gateway.api_tokens t WHERE id = $1`, [id]);
    expect(Buffer.from(rows[0].token_hash).equals(createHash('sha256').update(token).digest())).toBe(true);
    expect(rows[0].whole).not.toContain(token);
  });

  it('a bad token request is a 400 naming the field; an unknown token id is 404', async () => {
    const bad = await h.call({ method: 'POST', url: '/api/v1/tokens', payload: { name: 'x', role: 'root', teams: '*' } }, h.adminToken);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ field: 'role' });
    const missing = await h.call({ method: 'DELETE', url: '/api/v1/tokens/00000000-0000-4000-8000-000000000000' }, h.adminToken);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'TOKEN.NOT_FOUND' });
  });
});

describe('first start without tokens', () => {
  it('writes a generated admin token to HS_ADMIN_TOKEN_FILE (0600, never to stdout or logs), stores only its hash, and writes nothing on the next start', async () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const dir = await mkdtemp(join(tmpdir(), 'hs-admin-token-'));
    const file = join(dir, 'nested', 'admin-token');
    let first: GatewayHarness | undefined;
    let second: GatewayHarness | undefined;
    try {
      first = await startGatewayHarness({ label: 'gwfirst', teamManager: false, withoutAdminToken: true, env: { HS_ADMIN_TOKEN_FILE: file } });
      const token = (await readFile(file, 'utf8')).trim();
      expect(token).toMatch(/^hst_\S{40,}$/);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await stat(join(dir, 'nested'))).mode & 0o777).toBe(0o700);
      // stdout (and the JSON log lines on it) say where the token is, never what it is.
      expect(written.join('')).toContain(`The admin token is in ${file} (mode 0600)`);
      expect(written.join('')).not.toContain(token);
      expect((await first.call({ method: 'GET', url: '/api/v1/tokens' }, token)).statusCode).toBe(200);
      const { rows } = await first.db.pool.query(`SELECT count(*)::int AS n FROM gateway.api_tokens WHERE token_hash = $1`, [createHash('sha256').update(token).digest()]);
      expect(rows[0].n).toBe(1);
      await first.close(true);

      written.length = 0;
      second = await startGatewayHarness({ label: 'gwfirst', teamManager: false, withoutAdminToken: true, db: first.db, env: { HS_ADMIN_TOKEN_FILE: file } });
      expect(written.join('')).not.toContain('admin token is in');
      expect((await readFile(file, 'utf8')).trim()).toBe(token);
      expect((await second.call({ method: 'GET', url: '/api/v1/tokens' }, token)).json().items).toHaveLength(1);
    } finally {
      spy.mockRestore();
      await second?.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a new HS_ADMIN_TOKEN is stored even when other tokens exist, and a revoked one stays revoked while they do', async () => {
    const first = await startGatewayHarness({ label: 'gwenvnew', teamManager: false });
    const fresh = `hst_${'n'.repeat(40)}`;
    let second: GatewayHarness | undefined;
    let third: GatewayHarness | undefined;
    try {
      const created = (await first.call({ method: 'POST', url: '/api/v1/tokens', payload: { name: 'ops', role: 'admin', teams: '*' } }, first.adminToken)).json();
      await first.close(true);
      second = await startGatewayHarness({ label: 'gwenvnew', teamManager: false, db: first.db, env: { HS_ADMIN_TOKEN: fresh } });
      expect((await second.call({ method: 'GET', url: '/api/v1/tokens' }, fresh)).statusCode).toBe(200);
      const { rows } = await second.db.pool.query(`SELECT id FROM gateway.api_tokens WHERE token_hash = $1`, [createHash('sha256').update(fresh).digest()]);
      const stored = rows[0];
      expect((await second.call({ method: 'DELETE', url: `/api/v1/tokens/${stored.id}` }, created.token)).statusCode).toBe(204);
      await second.close(true);
      third = await startGatewayHarness({ label: 'gwenvnew', teamManager: false, db: first.db, env: { HS_ADMIN_TOKEN: fresh } });
      expect((await third.call({ method: 'GET', url: '/api/v1/tokens' }, fresh)).statusCode).toBe(401);
    } finally {
      await third?.close();
    }
  });
});

describe('HS_ADMIN_TOKEN', () => {
  it('is stored hashed on start and, when it was revoked and no token is left, honoured again on the next start', async () => {
    const first = await startGatewayHarness({ label: 'gwenvtok', teamManager: false });
    let second: GatewayHarness | undefined;
    try {
      const { rows } = await first.db.pool.query(`SELECT id FROM gateway.api_tokens`);
      expect(rows).toHaveLength(1);
      expect((await first.call({ method: 'DELETE', url: `/api/v1/tokens/${rows[0].id}` }, first.adminToken)).statusCode).toBe(204);
      expect((await first.call({ method: 'GET', url: '/api/v1/tokens' }, first.adminToken)).statusCode).toBe(401);
      await first.close(true);
      second = await startGatewayHarness({ label: 'gwenvtok', teamManager: false, db: first.db, env: { HS_ADMIN_TOKEN: first.adminToken } });
      expect((await second.call({ method: 'GET', url: '/api/v1/tokens' }, first.adminToken)).statusCode).toBe(200);
    } finally {
      await second?.close();
    }
  });

  it('a new HS_ADMIN_TOKEN is stored even when other tokens exist, and a revoked one stays revoked while they do', async () => {
    const first = await startGatewayHarness({ label: 'gwenvnew', teamManager: false });
    const fresh = `hst_${'n'.repeat(40)}`;
    let second: GatewayHarness | undefined;
    let third: GatewayHarness | undefined;
    try {
      const created = (await first.call({ method: 'POST', url: '/api/v1/tokens', payload: { name: 'ops', role: 'admin', teams: '*' } }, first.adminToken)).json();
      await first.close(true);
      second = await startGatewayHarness({ label: 'gwenvnew', teamManager: false, db: first.db, env: { HS_ADMIN_TOKEN: fresh } });
      expect((await second.call({ method: 'GET', url: '/api/v1/tokens' }, fresh)).statusCode).toBe(200);
      const { rows } = await second.db.pool.query(`SELECT id FROM gateway.api_tokens WHERE token_hash = $1`, [createHash('sha256').update(fresh).digest()]);
      const stored = rows[0];
      expect((await second.call({ method: 'DELETE', url: `/api/v1/tokens/${stored.id}` }, created.token)).statusCode).toBe(204);
      await second.close(true);
      third = await startGatewayHarness({ label: 'gwenvnew', teamManager: false, db: first.db, env: { HS_ADMIN_TOKEN: fresh } });
      expect((await third.call({ method: 'GET', url: '/api/v1/tokens' }, fresh)).statusCode).toBe(401);
    } finally {
      await third?.close();
    }
  });
});
