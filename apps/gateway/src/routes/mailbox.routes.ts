import { listMessages, openInbox, pageQuerySchema, sendMessage, takeUnread } from '@headspace/contracts';
import { z } from 'zod';
import { commandRoute, queryRoute, type ApiRoute } from './api-route';

const tag = 'mailboxes';

export const mailboxRoutes: ApiRoute[] = [
  commandRoute(openInbox, {
    operationId: 'openInbox',
    path: '/api/v1/teams/:team/inboxes',
    tag,
    summary: "Open a member's inbox (lead or member)",
    status: 201,
  }),
  commandRoute(sendMessage, {
    operationId: 'sendMessage',
    path: '/api/v1/teams/:team/messages',
    tag,
    summary: 'Send a message, broadcast, shutdown request/response or idle notification',
    status: 201,
  }),
  commandRoute(takeUnread, {
    operationId: 'takeUnread',
    path: '/api/v1/teams/:team/inboxes/:memberId/take-unread',
    tag,
    summary: 'Take the unread messages of a member (marks them read)',
  }),
  queryRoute(listMessages, {
    operationId: 'listMessages',
    path: '/api/v1/teams/:team/inboxes/:memberId/messages',
    tag,
    summary: "A member's messages, oldest first",
    query: pageQuerySchema.extend({ unreadOnly: z.stringbool().optional() }),
    build: ({ params, query }) => ({ ...query, limit: 1_000, ...params }),
    list: { field: 'messages', key: (m: { sentAt: string; messageId: string }) => `${m.sentAt}|${m.messageId}` },
  }),
];
