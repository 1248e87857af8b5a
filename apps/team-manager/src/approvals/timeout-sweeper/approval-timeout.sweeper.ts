import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { ConcurrencyError, quoteIdent } from '@headspace/event-store';
import { APP_CONFIG, PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';
import { ApprovalCommands } from '../approval-commands.service';

/** How often pending approvals are checked for an expired timeout (ms); `HS_APPROVAL_SWEEP_MS` overrides. */
export const DEFAULT_APPROVAL_SWEEP_MS = 250;

/**
 * Applies the default answer of every approval whose timeout has passed. Candidates come from the
 * projection (an index on pending expiries); each decision is taken against the approval's stream, so
 * a lagging projection or a concurrent answer can never produce two decisions. The command id is
 * derived from the approval, so replicas sweeping together record the timeout once.
 */
@Injectable()
export class ApprovalTimeoutSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ApprovalTimeoutSweeper.name);
  private readonly q: string;
  private readonly intervalMs: number;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly commands: ApprovalCommands,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
    @Inject(APP_CONFIG) config: { HS_APPROVAL_SWEEP_MS?: number },
  ) {
    this.q = quoteIdent(schema);
    this.intervalMs = config.HS_APPROVAL_SWEEP_MS ?? DEFAULT_APPROVAL_SWEEP_MS;
  }

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One pass: times out every expired pending approval; returns how many it decided. */
  async sweep(): Promise<number> {
    const { rows } = await this.pool.query<{ approval_id: string }>(
      `SELECT approval_id FROM ${this.q}.approvals WHERE status = 'pending' AND expires_at <= now() ORDER BY expires_at LIMIT 100`,
    );
    let decided = 0;
    for (const { approval_id: approvalId } of rows) {
      if (this.stopped) break;
      try {
        const outcome = await this.commands.run({ type: 'time-out', approvalId, now: new Date().toISOString() }, `approval-timeout:${approvalId}`);
        if (outcome.events.length) decided++;
      } catch (error) {
        // An answer won the race: the next pass sees it decided.
        if (!(error instanceof ConcurrencyError) && (error as { code?: string }).code !== 'EVENTSTORE.RETRIES_EXHAUSTED') throw error;
      }
    }
    return decided;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sweep()
        .then(() => undefined)
        .catch((error: unknown) => this.logger.error(`approval sweep failed: ${(error as Error).message}`))
        .finally(() => this.schedule());
    }, this.intervalMs);
  }
}
