import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, fileLockStreamId, HeadspaceError } from '@headspace/contracts';
import { EventStore, handleCommand, quoteIdent, type CommandContext, type CommandOutcome } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';
import { teamMustExist } from '../teams/shared/team-must-exist';
import { fileLockDecider, type FileLockCommand, type FileLockEvent, type FileLockState } from './file-lock.decider';

/**
 * A lock's commands through the one command handler. What is the lock's own: a team that does not
 * exist is LOCK.UNKNOWN_TEAM, nothing written. A retried command (same id, e.g. after a NATS timeout)
 * is answered as its first attempt was, even if the lock has moved on since (a retried lock is not
 * LOCK.HELD because someone took the path after it; a retried unlock still says it released).
 */
@Injectable()
export class FileLockRepository {
  private readonly schemaQ: string;

  constructor(
    private readonly store: EventStore,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
  ) {
    this.schemaQ = quoteIdent(schema);
  }

  execute(command: FileLockCommand, ctx: CommandContext): Promise<CommandOutcome<FileLockState, FileLockEvent>> {
    return handleCommand(this.store, fileLockDecider, fileLockStreamId(command.team, command.path), command, ctx, {
      // A lock's stream exists only inside an existing team (teams are never deleted): checked on the path's first command.
      before: ({ history }) => (history.length === 0 ? this.requireTeam(command.team) : undefined),
    });
  }

  requireTeam(team: string): Promise<void> {
    return teamMustExist(this.store, team, ErrorCodes.lockUnknownTeam);
  }

  /**
   * Releases every lock the file-locks read model says `holder` holds in `team`, each decided
   * against the lock's own stream (a path another teammate took since is left alone). `ctxFor` names
   * each release's command; a release that fails with an error `tolerate` accepts is skipped — by
   * default a path whose lock is no longer the holder's (the read model lagged a stale-lock break).
   * Returns the paths released.
   */
  async releaseAllOf(
    team: string,
    holder: string,
    opts: { now: string; ctxFor: (path: string) => CommandContext; tolerate?: (error: unknown) => boolean },
  ): Promise<string[]> {
    const { rows } = await this.pool.query<{ path: string }>(`SELECT path FROM ${this.schemaQ}.file_locks WHERE team = $1 AND holder = $2 ORDER BY path`, [team, holder]);
    const released: string[] = [];
    for (const { path } of rows) {
      const outcome = await this.execute({ type: 'unlock', team, path, holder, now: opts.now, reason: 'task-completed' }, opts.ctxFor(path)).catch((error: unknown) => {
        if (!(opts.tolerate ?? notTheHolderAnyMore)(error)) throw error;
        return undefined;
      });
      if (outcome && outcome.events.length > 0) released.push(path);
    }
    return released;
  }
}

const notTheHolderAnyMore = (error: unknown) => error instanceof HeadspaceError && error.code === ErrorCodes.lockNotHolder;
