import { Inject, Injectable } from '@nestjs/common';
import { quoteIdent } from '@headspace/event-store';
import { APP_CONFIG, PG_POOL, SERVICE_SCHEMA, Sweeper } from '@headspace/platform';
import type { Pool } from 'pg';
import type { AppConfig } from '../../config';
import { BudgetCommands } from '../budget-commands.service';

/**
 * Releases reservations that were never settled (a crashed agent, a lost record-usage) once
 * `HS_RESERVATION_TIMEOUT_MS` passed: `budget.reservation-expired` gives the hold back. Candidates
 * come from the projection; the decision is appended on the budget stream at its exact version, so
 * overlapping passes, or a settle racing the sweep, release each hold once.
 */
@Injectable()
export class ReservationExpirySweeper extends Sweeper {
  private readonly q: string;

  constructor(
    private readonly commands: BudgetCommands,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    super(pool, schema, { name: 'reservation-expiry', intervalMs: config.HS_RESERVATION_SWEEP_MS });
    this.q = quoteIdent(schema);
  }

  protected async sweep(): Promise<void> {
    const now = new Date();
    const { rows } = await this.pool.query<{ budget_id: string; first: string }>(
      `SELECT budget_id, min(reservation_id) AS first FROM ${this.q}.reservations WHERE expires_at <= $1 GROUP BY budget_id LIMIT 100`,
      [now.toISOString()],
    );
    for (const row of rows) {
      if (this.stopping) break;
      await this.commands.run(row.budget_id, { type: 'expire-reservations', now: now.toISOString() }, `reservation-expiry:${row.budget_id}:${row.first}`, {
        causationId: 'reservation-sweeper',
      });
    }
  }
}
