import { decideByType, type Decider } from '@headspace/event-store';
import {
  announceTeammateCompletion,
  createTeam,
  reportTeammateIdle,
  spawnTeammate,
  type AnnounceTeammateCompletion,
  type CreateTeam,
  type ReportTeammateIdle,
  type SpawnTeammate,
} from './decide/team-membership.decisions';
import {
  completeShutdown,
  forceShutdown,
  requestShutdown,
  respondShutdown,
  type CompleteShutdown,
  type ForceShutdown,
  type RequestShutdown,
  type RespondShutdown,
} from './decide/team-shutdown.decisions';
import { evolveTeam, type TeamEvent, type TeamState } from './decide/team.state';

export { initialPrompt } from './decide/team-membership.decisions';
export type { AnnounceTeammateCompletion, CompleteShutdown, CreateTeam, ForceShutdown, ReportTeammateIdle, RequestShutdown, RespondShutdown, SpawnTeammate };
export type { MemberState, ShutdownState, TeamEvent, TeamState } from './decide/team.state';

/**
 * The team aggregate (stream `team-<name>`): status, members and the shutdown protocol. Everything
 * that needs read-your-writes (duplicate names, depth limits, who still has to answer a shutdown)
 * is decided here against the stream, never against the roster projection.
 */
export type TeamCommand =
  | CreateTeam
  | SpawnTeammate
  | ReportTeammateIdle
  | AnnounceTeammateCompletion
  | RequestShutdown
  | RespondShutdown
  | CompleteShutdown
  | ForceShutdown;

export const teamDecider: Decider<TeamCommand, TeamState, TeamEvent> = {
  initialState: () => ({ exists: false }),
  decide: decideByType<TeamCommand, TeamState, TeamEvent>({
    'create-team': createTeam,
    'spawn-teammate': spawnTeammate,
    'report-teammate-idle': reportTeammateIdle,
    'announce-teammate-completion': announceTeammateCompletion,
    'request-shutdown': requestShutdown,
    'respond-shutdown': respondShutdown,
    'complete-shutdown': completeShutdown,
    'force-shutdown': forceShutdown,
  }),
  evolve: evolveTeam,
};
