import { z } from 'zod';
import type { Principal } from '../auth/principal';
import { objectBody, type ApiRoute } from '../routes/api-route';
import { createWebhookRequestSchema, updateWebhookRequestSchema, type CreateWebhookRequest, type UpdateWebhookRequest } from './subscription.policy';
import { WebhookBackfill } from './webhook-backfill';
import { WebhookSubscriptionsService } from './webhook-subscriptions.service';
import { createdWebhookSchema, webhookDeliveryViewSchema, webhookViewSchema } from './webhook.views';

const tag = 'webhooks';
const idParams = z.strictObject({ id: z.string().regex(/^wh_[0-9a-f]{24}$/, { error: 'must be a webhook id (wh_…)' }) });
const deliveryParams = idParams.extend({ deliveryId: z.string().regex(/^whd_[0-9a-f]{24}$/, { error: 'must be a delivery id (whd_…)' }) });
const sinceSchema = z
  .string()
  .max(64)
  .refine((v) => /^\d{1,19}$/.test(v) || !Number.isNaN(Date.parse(v)), { error: 'must be a log position (decimal) or an ISO-8601 time' });
const backfillRequest = idParams.extend({ since: sinceSchema });

const service = (ctx: { get: <T>(type: abstract new (...args: never[]) => T) => T }) => ctx.get(WebhookSubscriptionsService);
type Ctx = Parameters<ApiRoute['call']>[1];
const principalOf = (ctx: Ctx): Principal => ctx.principal;

const base = { tag, team: 'none' as const };

/**
 * Webhook subscriptions (issue 29 scope 2, ADR 0027): served by the gateway itself. Secrets are
 * write-only (a generated one is in the create answer only).
 */
export const webhookRoutes: ApiRoute[] = [
  {
    ...base,
    operationId: 'createWebhook',
    method: 'POST',
    path: '/api/v1/webhooks',
    summary: 'Subscribe a URL to events (signed CloudEvents POSTs); without `secret` one is generated and shown in this answer only',
    role: 'operator',
    status: 201,
    body: 'json',
    request: createWebhookRequestSchema,
    response: createdWebhookSchema,
    build: ({ body }) => objectBody(body),
    call: (_input, ctx) => service(ctx).create(ctx.parsed as CreateWebhookRequest, principalOf(ctx)),
  },
  {
    ...base,
    operationId: 'listWebhooks',
    method: 'GET',
    path: '/api/v1/webhooks',
    summary: 'Webhook subscriptions the token may see (never their secrets)',
    role: 'viewer',
    status: 200,
    request: z.object({}),
    response: z.object({ webhooks: z.array(webhookViewSchema) }),
    build: () => ({}),
    call: async (_input, ctx) => ({ webhooks: await service(ctx).list(principalOf(ctx)) }),
  },
  {
    ...base,
    operationId: 'getWebhook',
    method: 'GET',
    path: '/api/v1/webhooks/:id',
    summary: 'One webhook subscription',
    role: 'viewer',
    status: 200,
    request: idParams,
    response: webhookViewSchema,
    build: ({ params }) => ({ id: params.id }),
    call: (_input, ctx) => service(ctx).get((ctx.parsed as { id: string }).id, principalOf(ctx)),
  },
  {
    ...base,
    operationId: 'updateWebhook',
    method: 'PATCH',
    path: '/api/v1/webhooks/:id',
    summary: 'Change a subscription (URL, event types, filters, secret, description) or enable/disable it',
    role: 'operator',
    status: 200,
    body: 'json',
    request: updateWebhookRequestSchema,
    response: webhookViewSchema,
    build: ({ params, body }) => ({ ...objectBody(body), id: params.id }),
    call: (_input, ctx) => service(ctx).update(ctx.parsed as UpdateWebhookRequest, principalOf(ctx)),
  },
  {
    ...base,
    operationId: 'deleteWebhook',
    method: 'DELETE',
    path: '/api/v1/webhooks/:id',
    summary: 'Delete a subscription and its pending deliveries',
    role: 'operator',
    status: 204,
    request: idParams,
    response: z.undefined(),
    build: ({ params }) => ({ id: params.id }),
    call: (_input, ctx) => service(ctx).remove((ctx.parsed as { id: string }).id, principalOf(ctx)),
  },
  {
    ...base,
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    path: '/api/v1/webhooks/:id/deliveries',
    summary: "A subscription's latest deliveries, newest first (state, response code, attempts, next attempt, last error)",
    role: 'viewer',
    status: 200,
    query: z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) }),
    request: idParams.extend({ limit: z.number().int().min(1).max(500).default(100) }),
    response: z.object({ deliveries: z.array(webhookDeliveryViewSchema) }),
    build: ({ params, query }) => ({ id: params.id, ...query }),
    call: async (_input, ctx) => {
      const { id, limit } = ctx.parsed as { id: string; limit: number };
      return { deliveries: await service(ctx).deliveries(id, principalOf(ctx), limit) };
    },
  },
  {
    ...base,
    operationId: 'redeliverWebhookDelivery',
    method: 'POST',
    path: '/api/v1/webhooks/:id/deliveries/:deliveryId/redeliver',
    summary: "Send a delivery's event again, as a new delivery",
    role: 'operator',
    status: 202,
    request: deliveryParams,
    response: webhookDeliveryViewSchema,
    build: ({ params }) => ({ id: params.id, deliveryId: params.deliveryId }),
    call: (_input, ctx) => {
      const { id, deliveryId } = ctx.parsed as z.output<typeof deliveryParams>;
      return service(ctx).redeliver(id, deliveryId, principalOf(ctx));
    },
  },
  {
    ...base,
    operationId: 'backfillWebhook',
    method: 'POST',
    path: '/api/v1/webhooks/:id/backfill',
    summary: 'Deliver again the matching events since a log position or a time (within the event streams\u2019 retention)',
    role: 'operator',
    status: 202,
    body: 'json',
    request: backfillRequest,
    response: z.object({ backfillId: z.string(), scheduled: z.number().int(), truncated: z.boolean() }),
    build: ({ params, body }) => ({ ...objectBody(body), id: params.id }),
    call: (_input, ctx) => {
      const { id, since } = ctx.parsed as z.output<typeof backfillRequest>;
      return ctx.get(WebhookBackfill).backfill(id, /^\d+$/.test(since) ? { position: BigInt(since) } : { time: new Date(since).toISOString() }, principalOf(ctx));
    },
  },
];
