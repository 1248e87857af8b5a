import { listInboxes } from '@headspace/contracts';
import { queryRoute, type ApiRoute } from './api-route';

/** Read-only: every open inbox of a team (not only its members'), for the dashboard's mailboxes view. */
export const inboxListRoutes: ApiRoute[] = [
  queryRoute(listInboxes, {
    operationId: 'listInboxes',
    path: '/api/v1/teams/:team/inboxes',
    tag: 'mailboxes',
    summary: 'Open inboxes of the team, with message and unread counts',
  }),
];
