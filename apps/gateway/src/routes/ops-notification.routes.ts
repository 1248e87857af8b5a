import { getNotificationSettings, listNotificationDeliveries, setNotificationSettings } from '@headspace/contracts';
import { z } from 'zod';
import { commandRoute, objectBody, queryRoute, type ApiRoute } from './api-route';

const tag = 'ops';

/**
 * Leon's notification settings per project (issue 20 scope 6): webhooks (their secrets write-only:
 * answers say `secretSet`, never the secret) and email, and the deliveries made.
 */
export const opsNotificationRoutes: ApiRoute[] = [
  commandRoute(setNotificationSettings, {
    operationId: 'setOpsNotificationSettings',
    method: 'PUT',
    path: '/api/v1/ops/projects/:project/notifications',
    tag,
    summary: "Replace a project's notification webhooks and email (a webhook named again without `secret` keeps its secret)",
    role: 'admin',
    project: 'path',
    build: ({ params, body }) => ({ ...objectBody(body), project: params.project }),
    call: (input: z.input<typeof setNotificationSettings.request>, ctx) => ctx.send(setNotificationSettings, { ...input, setBy: ctx.principal.name }),
  }),
  queryRoute(getNotificationSettings, {
    operationId: 'getOpsNotificationSettings',
    path: '/api/v1/ops/projects/:project/notifications',
    tag,
    summary: "A project's notification settings, without the webhook secrets",
    project: 'path',
  }),
  queryRoute(listNotificationDeliveries, {
    operationId: 'listOpsNotificationDeliveries',
    path: '/api/v1/ops/projects/:project/notifications/deliveries',
    tag,
    summary: "A project's latest notification deliveries (state, attempts, last error), newest first",
    project: 'path',
    query: z.object({ limit: z.coerce.number().int().min(1).max(500).optional() }),
  }),
];
