import { Injectable } from '@nestjs/common';
import { ErrorCodes, fileLockStreamId } from '@headspace/contracts';
import { EventStore, handleCommand, type CommandContext, type CommandOutcome } from '@headspace/event-store';
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
  constructor(private readonly store: EventStore) {}

  execute(command: FileLockCommand, ctx: CommandContext): Promise<CommandOutcome<FileLockState, FileLockEvent>> {
    return handleCommand(this.store, fileLockDecider, fileLockStreamId(command.team, command.path), command, ctx, {
      // A lock's stream exists only inside an existing team (teams are never deleted): checked on the path's first command.
      before: ({ history }) => (history.length === 0 ? this.requireTeam(command.team) : undefined),
    });
  }

  requireTeam(team: string): Promise<void> {
    return teamMustExist(this.store, team, ErrorCodes.lockUnknownTeam);
  }
}
