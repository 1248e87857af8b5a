import { Inject, Injectable } from '@nestjs/common';
import type { ApiTokenView } from '@headspace/contracts';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';
import type { GatewayRole } from '../auth/principal';

export interface StoredToken extends ApiTokenView {
  hash: Buffer;
}

export interface NewToken {
  id: string;
  name: string;
  role: GatewayRole;
  teams: string[] | '*';
  projects: string[] | '*';
  hash: Buffer;
}

interface Row {
  id: string;
  name: string;
  role: GatewayRole;
  teams: string[] | '*';
  projects: string[] | '*';
  token_hash: Buffer;
  created_at: Date | string;
  revoked_at: Date | string | null;
  last_used_at: Date | string | null;
}

export interface TokenRequest {
  issuerTokenId: string;
  idempotencyKey: string;
  fingerprint: Buffer;
  sealedToken: Buffer;
}

export interface PriorTokenRequest {
  token: StoredToken;
  fingerprint: Buffer;
  /** The seal, while the replay window is open; null after it. */
  sealedToken: Buffer | null;
}

const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

const toToken = (r: Row): StoredToken => ({
  id: r.id,
  name: r.name,
  role: r.role,
  teams: r.teams,
  projects: r.projects,
  hash: r.token_hash,
  createdAt: new Date(r.created_at).toISOString(),
  revokedAt: iso(r.revoked_at),
  lastUsedAt: iso(r.last_used_at),
});

/** `gateway.api_tokens`: the only durable state of the gateway. */
@Injectable()
export class TokenRepository {
  private readonly table: string;
  private readonly requests: string;

  constructor(@Inject(PG_POOL) private readonly pool: Pool, @Inject(SERVICE_SCHEMA) schema: string) {
    this.table = `"${schema}".api_tokens`;
    this.requests = `"${schema}".api_token_requests`;
  }

  /**
   * Inserts the token and the keyed request that minted it in one transaction. Undefined, with
   * nothing inserted, when the caller's key is already taken (a concurrent retry won: the primary key
   * makes this insert wait for it and then yield).
   */
  async insertForRequest(token: NewToken, request: TokenRequest): Promise<StoredToken | undefined> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<Row>(
        `INSERT INTO ${this.table} (id, name, role, teams, projects, token_hash) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
        [token.id, token.name, token.role, JSON.stringify(token.teams), JSON.stringify(token.projects), token.hash],
      );
      const { rowCount } = await client.query(
        `INSERT INTO ${this.requests} (issuer_token_id, idempotency_key, request_hash, token_id, sealed_token)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
        [request.issuerTokenId, request.idempotencyKey, request.fingerprint, token.id, request.sealedToken],
      );
      await client.query(rowCount === 1 ? 'COMMIT' : 'ROLLBACK');
      return rowCount === 1 ? toToken(rows[0]) : undefined;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** The token a caller's key minted; its seal only while younger than `windowSeconds`. */
  async findRequest(issuerTokenId: string, idempotencyKey: string, windowSeconds: number): Promise<PriorTokenRequest | undefined> {
    const { rows } = await this.pool.query<Row & { request_hash: Buffer; sealed: Buffer | null }>(
      `SELECT t.*, r.request_hash,
              CASE WHEN r.created_at > now() - make_interval(secs => $3) THEN r.sealed_token END AS sealed
         FROM ${this.requests} r JOIN ${this.table} t ON t.id = r.token_id
        WHERE r.issuer_token_id = $1 AND r.idempotency_key = $2`,
      [issuerTokenId, idempotencyKey, windowSeconds],
    );
    return rows[0] ? { token: toToken(rows[0]), fingerprint: rows[0].request_hash, sealedToken: rows[0].sealed } : undefined;
  }

  /** Wipes the seals older than the window: no replay can use them any more. */
  async forgetSealsBefore(windowSeconds: number): Promise<void> {
    await this.pool.query(
      `UPDATE ${this.requests} SET sealed_token = NULL WHERE sealed_token IS NOT NULL AND created_at <= now() - make_interval(secs => $1)`,
      [windowSeconds],
    );
  }

  async insert(token: NewToken): Promise<StoredToken> {
    const { rows } = await this.pool.query<Row>(
      `INSERT INTO ${this.table} (id, name, role, teams, projects, token_hash) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [token.id, token.name, token.role, JSON.stringify(token.teams), JSON.stringify(token.projects), token.hash],
    );
    return toToken(rows[0]);
  }

  async findActiveByHash(hash: Buffer): Promise<StoredToken | undefined> {
    const { rows } = await this.pool.query<Row>(`SELECT * FROM ${this.table} WHERE token_hash = $1 AND revoked_at IS NULL`, [hash]);
    return rows[0] ? toToken(rows[0]) : undefined;
  }

  /** Whether a token with this hash was ever stored (revoked or not). */
  async knownHash(hash: Buffer): Promise<boolean> {
    const { rowCount } = await this.pool.query(`SELECT 1 FROM ${this.table} WHERE token_hash = $1`, [hash]);
    return (rowCount ?? 0) > 0;
  }

  /** Un-revokes the token with this hash; true when there was one. */
  async reactivate(hash: Buffer): Promise<boolean> {
    const { rowCount } = await this.pool.query(`UPDATE ${this.table} SET revoked_at = NULL WHERE token_hash = $1`, [hash]);
    return rowCount === 1;
  }

  async touch(id: string): Promise<void> {
    await this.pool.query(`UPDATE ${this.table} SET last_used_at = now() WHERE id = $1`, [id]);
  }

  async list(): Promise<StoredToken[]> {
    const { rows } = await this.pool.query<Row>(`SELECT * FROM ${this.table} ORDER BY created_at, id`);
    return rows.map(toToken);
  }

  /** True when the token existed and was active. */
  async revoke(id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(`UPDATE ${this.table} SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL`, [id]);
    return rowCount === 1;
  }

  async exists(id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(`SELECT 1 FROM ${this.table} WHERE id = $1`, [id]);
    return rowCount === 1;
  }

  /**
   * Runs `seed` when no active token exists, under an advisory lock so two replicas starting at
   * once create one first admin token, not two.
   */
  async withFirstStartLock(seed: (hasActive: boolean) => Promise<void>): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [`${this.table}:first-start`]);
      const { rowCount } = await client.query(`SELECT 1 FROM ${this.table} WHERE revoked_at IS NULL LIMIT 1`);
      await seed(rowCount === 1);
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`${this.table}:first-start`]).catch(() => undefined);
      client.release();
    }
  }
}
