import { z } from 'zod';
import { defineEvent } from '../messages';

/** The gateway's own event stream of one webhook subscription (ADR 0027). */
export const webhookSubscriptionStreamId = (subscriptionId: string) => `webhook-${subscriptionId}`;

const at = z.iso.datetime();

/**
 * The gateway stopped delivering to a subscription whose deliveries failed without a success for
 * longer than HS_WEBHOOK_DISABLE_AFTER_MS. Recorded in the same transaction as the disable; its
 * pending deliveries resume if an operator enables it again. No URL: the event reaches every
 * subscriber of `webhook.*`, and a URL may carry a token in its path or query.
 */
export const webhookSubscriptionDisabled = defineEvent({
  service: 'gateway',
  category: 'webhook',
  name: 'subscription-disabled',
  schema: z.object({
    subscriptionId: z.string(),
    reason: z.string(),
    /** The subscription's filters (null = every team / project). */
    teams: z.array(z.string()).nullable(),
    projects: z.array(z.string()).nullable(),
    /** When the failing streak began. */
    failingSince: at,
    /** The attempt that made the streak too long. */
    lastFailure: z.object({
      deliveryId: z.string(),
      eventId: z.string(),
      attempt: z.number().int().positive(),
      /** The receiver's status, or null when no answer came (timeout, connection refused, target refused). */
      responseStatus: z.number().int().nullable(),
      error: z.string(),
      at,
    }),
    at,
  }),
});

/** Every event the gateway appends to its own log (its relay publishes them on `hs.evt.gateway.*`). */
export const gatewayEvents = [webhookSubscriptionDisabled];
