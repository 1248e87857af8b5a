import type { Pool } from 'pg';

/**
 * A named lease in the service's `checkpoints` table (the platform sweeper's scheme): held until
 * `leaseMs` after the last renewal; a released or expired lease goes to whoever asks next.
 */
export class ConsumerLease {
  private readonly acquireSql: string;
  private readonly releaseSql: string;

  constructor(
    private readonly pool: Pool,
    quotedSchema: string,
    private readonly key: string,
    private readonly owner: string,
    private readonly leaseMs: number,
  ) {
    const table = `${quotedSchema}.checkpoints`;
    this.acquireSql = `INSERT INTO ${table} AS c (processor, lease_owner, lease_expires_at)
                       VALUES ($1, $2, now() + make_interval(secs => $3::double precision / 1000))
                       ON CONFLICT (processor) DO UPDATE SET lease_owner = EXCLUDED.lease_owner, lease_expires_at = EXCLUDED.lease_expires_at, updated_at = now()
                        WHERE c.lease_owner IS NULL OR c.lease_owner = EXCLUDED.lease_owner OR c.lease_expires_at < now()`;
    this.releaseSql = `UPDATE ${table} SET lease_owner = NULL, lease_expires_at = NULL, updated_at = now() WHERE processor = $1 AND lease_owner = $2`;
  }

  /** Takes or renews the lease; false while another instance holds it. */
  async acquire(): Promise<boolean> {
    const { rowCount } = await this.pool.query(this.acquireSql, [this.key, this.owner, this.leaseMs]);
    return rowCount === 1;
  }

  async release(): Promise<void> {
    await this.pool.query(this.releaseSql, [this.key, this.owner]);
  }
}
