import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

/** A credential is the worst place to lose idempotency: a retried POST /tokens must not mint a second one. */
describe('POST /tokens with an Idempotency-Key', () => {
  let h: GatewayHarness;
  beforeAll(async () => {
    h = await startGatewayHarness({ label: 'gwtokidem', teamManager: false });
  });
  afterAll(async () => h?.close());

  const create = (payload: object, key: string, token = h.adminToken) =>
    h.call({ method: 'POST', url: '/api/v1/tokens', payload, headers: { 'idempotency-key': key } }, token);
  const tokensNamed = async (name: string) =>
    Number((await h.db.pool.query(`SELECT count(*)::int AS n FROM gateway.api_tokens WHERE name = $1`, [name])).rows[0].n);

  it('a retry answers the identical first body, the secret included, and mints nothing', async () => {
    const key = randomUUID();
    const first = await create({ name: 'ci-retry', role: 'admin', teams: ['alpha'] }, key);
    const again = await create({ name: 'ci-retry', role: 'admin', teams: ['alpha'] }, key);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(await tokensNamed('ci-retry')).toBe(1);
    expect((await h.call({ method: 'GET', url: '/api/v1/tokens' }, again.json().token)).statusCode).toBe(200);
  });

  it('concurrent retries of one request mint one token and all answer it', async () => {
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 6 }, () => create({ name: 'ci-race', role: 'operator', teams: '*' }, key)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(6).fill(201));
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(await tokensNamed('ci-race')).toBe(1);
  });

  it('keeps the secret only sealed: the database never holds the plaintext', async () => {
    const { id, token } = (await create({ name: 'ci-sealed', role: 'viewer', teams: '*' }, randomUUID())).json();
    const { rows } = await h.db.pool.query(
      `SELECT to_jsonb(r)::text AS whole, encode(r.sealed_token, 'escape') AS raw FROM gateway.api_token_requests r WHERE token_id = $1`,
      [id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].whole).not.toContain(token);
    expect(rows[0].raw).not.toContain(token.slice(4));
  });

  it('the same key for a different request is refused with 422 naming the header, and mints nothing', async () => {
    const key = randomUUID();
    expect((await create({ name: 'ci-first', role: 'viewer', teams: '*' }, key)).statusCode).toBe(201);
    const other = await create({ name: 'ci-other', role: 'admin', teams: '*' }, key);
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ code: 'GATEWAY.IDEMPOTENCY_KEY_REUSED', field: 'Idempotency-Key' });
    expect(await tokensNamed('ci-other')).toBe(0);
  });

  it('a key is its caller’s: another admin using the same key gets a token of its own', async () => {
    const key = randomUUID();
    const otherAdmin = await h.issueToken('admin', '*');
    const mine = await create({ name: 'ci-scoped', role: 'viewer', teams: '*' }, key);
    const theirs = await create({ name: 'ci-scoped', role: 'viewer', teams: '*' }, key, otherAdmin);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json().id).not.toBe(mine.json().id);
  });

  it('after the replay window the key still mints nothing: 409 naming the token it minted', async () => {
    const key = randomUUID();
    const first = (await create({ name: 'ci-late', role: 'viewer', teams: '*' }, key)).json();
    await h.db.pool.query(`UPDATE gateway.api_token_requests SET created_at = now() - interval '25 hours' WHERE token_id = $1`, [first.id]);
    const late = await create({ name: 'ci-late', role: 'viewer', teams: '*' }, key);
    expect(late.statusCode).toBe(409);
    expect(late.json()).toMatchObject({ code: 'GATEWAY.IDEMPOTENCY_REPLAY_EXPIRED', field: 'Idempotency-Key' });
    expect(late.json().detail).toContain(first.id);
    expect(await tokensNamed('ci-late')).toBe(1);
    const { rows } = await h.db.pool.query(`SELECT sealed_token FROM gateway.api_token_requests WHERE token_id = $1`, [first.id]);
    expect(rows[0].sealed_token).toBeNull();
  });
});
