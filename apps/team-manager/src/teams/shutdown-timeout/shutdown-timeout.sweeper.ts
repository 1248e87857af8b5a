import { Inject, Injectable } from '@nestjs/common';
import { HeadspaceError } from '@headspace/contracts';
import { idFromCommand, quoteIdent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA, Sweeper } from '@headspace/platform';
import type { Pool } from 'pg';
import { TeamCommandExecutor } from '../shared/team-command.executor';
import { teamDecider } from '../team.decider';
import { TEAMS_CONFIG, type TeamsConfig } from '../teams.config';

/**
 * Beyond the seed: a hung member must never block cleanup. Every `TEAM_SHUTDOWN_SWEEP_MS` this looks
 * in the roster for shutdowns past their deadline and forces them (timedOut: true, the unanswered
 * members recorded). The command id derives from the shutdown id, so passes over the same
 * shutdown append it once; the decision itself is taken against the team stream.
 */
@Injectable()
export class ShutdownTimeoutSweeper extends Sweeper {
  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) private readonly schema: string,
    @Inject(TEAMS_CONFIG) config: TeamsConfig,
    private readonly executor: TeamCommandExecutor,
  ) {
    super(pool, schema, { name: 'shutdown-timeouts', intervalMs: config.TEAM_SHUTDOWN_SWEEP_MS });
  }

  protected async sweep(): Promise<void> {
    const { rows } = await this.pool.query<{ team_name: string; shutdown_id: string }>(
      `SELECT team_name, shutdown ->> 'shutdownId' AS shutdown_id FROM ${quoteIdent(this.schema)}.team_roster_teams
        WHERE status = 'shutting-down' AND shutdown_deadline <= now() ORDER BY shutdown_deadline LIMIT 100`,
    );
    for (const { team_name: team, shutdown_id: shutdownId } of rows) {
      const commandId = idFromCommand(shutdownId, 'shutdown-timeout');
      const now = new Date().toISOString();
      await this.executor
        .execute(
          team,
          { commandId, metadata: { correlationId: shutdownId, causationId: shutdownId, actor: 'shutdown-timeout-sweeper' } },
          (state) => teamDecider.decide({ type: 'force-shutdown', team, reason: 'shutdown timed out', timedOutShutdownId: shutdownId, now }, state),
          () => undefined,
        )
        .catch((error) => {
          // Answered or forced meanwhile: the projection has not caught up yet; nothing to do.
          if (!(error instanceof HeadspaceError)) this.logger.error(error);
        });
    }
  }
}
