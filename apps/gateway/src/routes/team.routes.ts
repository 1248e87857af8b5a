import {
  completeTeamShutdown,
  createTeam,
  forceTeamShutdown,
  getTeam,
  listKnownTeams,
  pageQuerySchema,
  requestTeamShutdown,
  respondTeamShutdown,
} from '@headspace/contracts';
import { canSeeTeam, type Principal } from '../auth/principal';
import { commandRoute, queryRoute, type ApiRoute } from './api-route';

const tag = 'teams';

export const teamRoutes: ApiRoute[] = [
  commandRoute(createTeam, {
    operationId: 'createTeam',
    path: '/api/v1/teams',
    tag,
    summary: 'Create a team',
    status: 201,
    team: (input: { name: string }) => input.name,
  }),
  queryRoute(listKnownTeams, {
    operationId: 'listKnownTeams',
    path: '/api/v1/teams/known',
    tag,
    summary: 'Teams the orchestrator knows (its projection of team events)',
    query: pageQuerySchema,
    build: () => ({}),
    list: {
      field: 'teams',
      key: (t: { name: string }) => t.name,
      visible: (t: { name: string }, principal: Principal) => canSeeTeam(principal, t.name),
    },
  }),
  queryRoute(getTeam, {
    operationId: 'getTeam',
    path: '/api/v1/teams/:team',
    tag,
    summary: 'A team with its status and shutdown protocol state',
    build: ({ params }) => ({ name: params.team }),
  }),
  commandRoute(requestTeamShutdown, {
    operationId: 'requestTeamShutdown',
    path: '/api/v1/teams/:team/shutdown',
    tag,
    summary: 'Ask every live member to shut down',
    status: 202,
  }),
  commandRoute(respondTeamShutdown, {
    operationId: 'respondTeamShutdown',
    path: '/api/v1/teams/:team/shutdown/responses',
    tag,
    summary: "A member's answer to its shutdown request",
  }),
  commandRoute(completeTeamShutdown, {
    operationId: 'completeTeamShutdown',
    path: '/api/v1/teams/:team/shutdown/complete',
    tag,
    summary: "The lead's cleanup once every member is gone",
  }),
  commandRoute(forceTeamShutdown, {
    operationId: 'forceTeamShutdown',
    path: '/api/v1/teams/:team/shutdown/force',
    tag,
    summary: 'End the team now whatever the members say',
    role: 'admin',
  }),
];
