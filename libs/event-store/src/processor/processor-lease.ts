import type { Pool, PoolClient } from 'pg';
import { advanceCheckpoint, type Position } from './processor-sql';

/**
 * The lease on a processor's checkpoint row: one instance per processor name works at a time
 * across all replicas; the others wait and take over once it expires. `held` and `renewedAt` are
 * this instance's view, kept by the runner's loop.
 */
export class ProcessorLease {
  held = false;
  /** When this instance last extended the lease (Date.now()); 0 before. */
  renewedAt = 0;

  constructor(
    private readonly pool: Pool,
    /** The quoted schema. */
    private readonly q: string,
    private readonly name: string,
    readonly instanceId: string,
    readonly leaseMs: number,
  ) {}

  async ensureRow(): Promise<void> {
    await this.pool.query(`INSERT INTO ${this.q}.checkpoints (processor) VALUES ($1) ON CONFLICT (processor) DO NOTHING`, [this.name]);
  }

  /** Takes the lease when it is free, expired or already ours. */
  async tryAcquire(): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE ${this.q}.checkpoints
          SET lease_owner = $2, lease_expires_at = now() + make_interval(secs => $3::double precision / 1000), updated_at = now()
        WHERE processor = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_expires_at < now())`,
      [this.name, this.instanceId, this.leaseMs],
    );
    return rowCount === 1;
  }

  /** Extends the lease, and moves the stored checkpoint up to `read` (never back). False: the lease is another instance's. */
  async renew(client: PoolClient, read: Position): Promise<boolean> {
    const { rowCount } = await client.query(
      `UPDATE ${this.q}.checkpoints
          SET lease_expires_at = now() + make_interval(secs => $3::double precision / 1000),
              ${advanceCheckpoint('$4', '$5')},
              updated_at = now()
        WHERE processor = $1 AND lease_owner = $2`,
      [this.name, this.instanceId, this.leaseMs, read.transactionId, read.globalPosition.toString()],
    );
    return rowCount === 1;
  }

  /** Gives the lease up, storing how far this instance has read (never back), so another can take over at once. */
  async release(read: Position): Promise<void> {
    await this.pool
      .query(
        `UPDATE ${this.q}.checkpoints SET lease_owner = NULL, lease_expires_at = NULL, updated_at = now(),
            ${advanceCheckpoint('$3', '$4')}
          WHERE processor = $1 AND lease_owner = $2`,
        [this.name, this.instanceId, read.transactionId, read.globalPosition.toString()],
      )
      .catch(() => undefined);
  }

  /** Inside the rebuild's transaction: takes the lease and moves the checkpoint to 0. False: another instance holds it. */
  async takeForRebuild(tx: PoolClient): Promise<boolean> {
    const { rowCount } = await tx.query(
      `UPDATE ${this.q}.checkpoints SET transaction_id = '0', global_position = 0, lease_owner = $2,
         lease_expires_at = now() + make_interval(secs => $3::double precision / 1000), updated_at = now()
       WHERE processor = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_expires_at < now())`,
      [this.name, this.instanceId, this.leaseMs],
    );
    return rowCount === 1;
  }

  /**
   * The checkpoint and the COMMIT as one simple query: one round trip instead of two for every
   * batch. It needs no lease check (the batch statement's row lock proved the lease is ours and
   * holds it), so nothing has to be read between them; values are inlined because a simple query
   * takes no parameters. An error in the UPDATE skips the COMMIT and the batch rolls back.
   */
  checkpointAndCommit(client: PoolClient, last: Position): string {
    if (!/^\d+$/.test(last.transactionId)) throw new Error(`not a transaction id: ${last.transactionId}`);
    return `UPDATE ${this.q}.checkpoints SET transaction_id = '${last.transactionId}'::xid8, global_position = ${last.globalPosition},
              lease_expires_at = now() + make_interval(secs => ${this.leaseMs / 1000}), updated_at = now()
             WHERE processor = ${client.escapeLiteral(this.name)};
            COMMIT`;
  }
}
