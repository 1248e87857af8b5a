import { quoteIdent } from '@headspace/event-store';
import type { Pool } from 'pg';

/**
 * A named lease in the service's `checkpoints` table, the row processors keep theirs in (a sweeper's
 * row never gets a position). Held until `leaseMs` after the last renewal; a released or expired
 * lease goes to whichever instance asks next.
 */
export class SweeperLease {
  private readonly acquireSql: string;
  private readonly releaseSql: string;
  private held = false;

  constructor(
    private readonly pool: Pool,
    schema: string,
    readonly key: string,
    readonly owner: string,
    private readonly leaseMs: number,
  ) {
    const table = `${quoteIdent(schema)}.checkpoints`;
    // One statement takes a free or expired lease, or renews our own; a row of another live owner is left alone.
    this.acquireSql = `INSERT INTO ${table} AS c (processor, lease_owner, lease_expires_at)
                       VALUES ($1, $2, now() + make_interval(secs => $3::double precision / 1000))
                       ON CONFLICT (processor) DO UPDATE SET lease_owner = EXCLUDED.lease_owner, lease_expires_at = EXCLUDED.lease_expires_at, updated_at = now()
                        WHERE c.lease_owner IS NULL OR c.lease_owner = EXCLUDED.lease_owner OR c.lease_expires_at < now()`;
    this.releaseSql = `UPDATE ${table} SET lease_owner = NULL, lease_expires_at = NULL, updated_at = now() WHERE processor = $1 AND lease_owner = $2`;
  }

  get isHeld(): boolean {
    return this.held;
  }

  /** Takes or renews the lease; false while another instance holds it. */
  async acquire(): Promise<boolean> {
    const { rowCount } = await this.pool.query(this.acquireSql, [this.key, this.owner, this.leaseMs]);
    this.held = rowCount === 1;
    return this.held;
  }

  /** Gives the lease up so another instance takes over on its next tick instead of after the expiry. */
  async release(): Promise<void> {
    if (!this.held) return;
    this.held = false;
    await this.pool.query(this.releaseSql, [this.key, this.owner]);
  }
}
