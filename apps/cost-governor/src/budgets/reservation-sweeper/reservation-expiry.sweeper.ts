import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { quoteIdent } from '@headspace/event-store';
import { APP_CONFIG, PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';
import type { AppConfig } from '../../config';
import { BudgetCommands } from '../budget-commands.service';

/**
 * Releases reservations that were never settled (a crashed agent, a lost record-usage) once
 * `HS_RESERVATION_TIMEOUT_MS` passed: `budget.reservation-expired` gives the hold back. Candidates
 * come from the projection; the decision is appended on the budget stream at its exact version, so
 * replicas sweeping together, or a settle racing the sweep, release each hold once.
 */
@Injectable()
export class ReservationExpirySweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ReservationExpirySweeper.name);
  private readonly q: string;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly commands: BudgetCommands,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.q = quoteIdent(schema);
  }

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One pass; returns how many budgets released something. */
  async sweep(now = new Date()): Promise<number> {
    const { rows } = await this.pool.query<{ budget_id: string; first: string }>(
      `SELECT budget_id, min(reservation_id) AS first FROM ${this.q}.reservations WHERE expires_at <= $1 GROUP BY budget_id LIMIT 100`,
      [now.toISOString()],
    );
    let released = 0;
    for (const row of rows) {
      if (this.stopped) break;
      const outcome = await this.commands.run(row.budget_id, { type: 'expire-reservations', now: now.toISOString() }, `reservation-expiry:${row.budget_id}:${row.first}`, {
        causationId: 'reservation-sweeper',
      });
      if (!outcome.replayed) released++;
    }
    return released;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sweep()
        .then(() => undefined)
        .catch((error: unknown) => this.logger.error(`reservation sweep failed: ${(error as Error).message}`))
        .finally(() => this.schedule());
    }, this.config.HS_RESERVATION_SWEEP_MS);
  }
}
