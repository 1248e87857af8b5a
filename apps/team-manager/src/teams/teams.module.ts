import { Global, Module } from '@nestjs/common';
import { CompleteShutdownHandler } from './complete-shutdown/complete-shutdown.handler';
import { CreateTeamHandler } from './create-team/create-team.handler';
import { ForceShutdownHandler } from './force-shutdown/force-shutdown.handler';
import { GetTeamHandler } from './get-team/get-team.handler';
import { RequestShutdownHandler } from './request-shutdown/request-shutdown.handler';
import { RespondShutdownHandler } from './respond-shutdown/respond-shutdown.handler';
import { TeamRosterProjection } from './roster/team-roster.projection';
import { TeamCommandExecutor } from './shared/team-command.executor';
import { ShutdownTimeoutSweeper } from './shutdown-timeout/shutdown-timeout.sweeper';
import { teamsConfigProvider, TEAMS_CONFIG } from './teams.config';

/**
 * Team lifecycle: create, the graceful shutdown protocol, forced and timed-out shutdown, and the team
 * roster projection. Global so the members feature shares the team aggregate's executor and config.
 */
@Global()
@Module({
  providers: [
    teamsConfigProvider,
    TeamCommandExecutor,
    TeamRosterProjection,
    ShutdownTimeoutSweeper,
  ],
  controllers: [CreateTeamHandler, GetTeamHandler, RequestShutdownHandler, RespondShutdownHandler, CompleteShutdownHandler, ForceShutdownHandler],
  exports: [TeamCommandExecutor, TEAMS_CONFIG],
})
export class TeamsModule {}
