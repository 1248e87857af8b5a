import {
  announceTeammateCompletion,
  getTeammateInjection,
  listTeammateAnnouncements,
  listTeammates,
  memberStatusSchema,
  pageQuerySchema,
  reportTeammateIdle,
  spawnTeammate,
} from '@headspace/contracts';
import { z } from 'zod';
import { commandRoute, queryRoute, type ApiRoute } from './api-route';

const tag = 'members';

export const memberRoutes: ApiRoute[] = [
  queryRoute(listTeammates, {
    operationId: 'listTeammates',
    path: '/api/v1/teams/:team/members',
    tag,
    summary: "The team's roster (lead and teammates)",
    query: pageQuerySchema.extend({ status: memberStatusSchema.optional() }),
    list: { field: 'members', key: (m: { name: string }) => m.name },
  }),
  commandRoute(spawnTeammate, {
    operationId: 'spawnTeammate',
    path: '/api/v1/teams/:team/members',
    tag,
    summary: 'Spawn a teammate (its inbox is opened with it)',
    status: 201,
  }),
  queryRoute(getTeammateInjection, {
    operationId: 'getTeammateInjection',
    path: '/api/v1/teams/:team/members/:member/injection',
    tag,
    summary: 'What a new teammate is told about its team',
  }),
  commandRoute(reportTeammateIdle, {
    operationId: 'reportTeammateIdle',
    path: '/api/v1/teams/:team/members/:member/idle',
    tag,
    summary: 'A teammate reports it went idle',
  }),
  commandRoute(announceTeammateCompletion, {
    operationId: 'announceTeammateCompletion',
    path: '/api/v1/teams/:team/members/:member/announcements',
    tag,
    summary: 'A teammate announces its completion to the lead',
    status: 201,
  }),
  queryRoute(listTeammateAnnouncements, {
    operationId: 'listTeammateAnnouncements',
    path: '/api/v1/teams/:team/announcements',
    tag,
    summary: 'Completion announcements of the team',
    query: pageQuerySchema.extend({ to: z.string().max(100).optional() }),
    list: {
      field: 'announcements',
      key: (a: { announcedAt: string; announcementId: string }) => `${a.announcedAt}|${a.announcementId}`,
    },
  }),
];
