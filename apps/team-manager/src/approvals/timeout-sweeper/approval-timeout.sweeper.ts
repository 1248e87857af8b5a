import { Inject, Injectable } from '@nestjs/common';
import { ConcurrencyError, quoteIdent } from '@headspace/event-store';
import { APP_CONFIG, PG_POOL, SERVICE_SCHEMA, Sweeper } from '@headspace/platform';
import type { Pool } from 'pg';
import { ApprovalCommands } from '../approval-commands.service';

/** How often pending approvals are checked for an expired timeout (ms); `HS_APPROVAL_SWEEP_MS` overrides. */
export const DEFAULT_APPROVAL_SWEEP_MS = 250;

/**
 * Applies the default answer of every approval whose timeout has passed. Candidates come from the
 * projection (an index on pending expiries); each decision is taken against the approval's stream, so
 * a lagging projection or a concurrent answer can never produce two decisions. The command id is
 * derived from the approval, so passes that overlap record the timeout once.
 */
@Injectable()
export class ApprovalTimeoutSweeper extends Sweeper {
  private readonly q: string;

  constructor(
    private readonly commands: ApprovalCommands,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
    @Inject(APP_CONFIG) config: { HS_APPROVAL_SWEEP_MS?: number },
  ) {
    super(pool, schema, { name: 'approval-timeouts', intervalMs: config.HS_APPROVAL_SWEEP_MS ?? DEFAULT_APPROVAL_SWEEP_MS });
    this.q = quoteIdent(schema);
  }

  /** One pass: times out every expired pending approval. */
  protected async sweep(): Promise<void> {
    const { rows } = await this.pool.query<{ approval_id: string }>(
      `SELECT approval_id FROM ${this.q}.approvals WHERE status = 'pending' AND expires_at <= now() ORDER BY expires_at LIMIT 100`,
    );
    for (const { approval_id: approvalId } of rows) {
      if (this.stopping) break;
      try {
        await this.commands.run({ type: 'time-out', approvalId, now: new Date().toISOString() }, `approval-timeout:${approvalId}`);
      } catch (error) {
        // An answer won the race: the next pass sees it decided.
        if (!(error instanceof ConcurrencyError) && (error as { code?: string }).code !== 'EVENTSTORE.RETRIES_EXHAUSTED') throw error;
      }
    }
  }
}
