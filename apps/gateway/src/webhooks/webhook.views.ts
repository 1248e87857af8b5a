import { z } from 'zod';

export const webhookViewSchema = z.object({
  id: z.string(),
  url: z.string(),
  eventTypes: z.array(z.string()),
  teams: z.array(z.string()).nullable(),
  projects: z.array(z.string()).nullable(),
  description: z.string(),
  enabled: z.boolean(),
  disabledReason: z.string().nullable(),
  failingSince: z.string().nullable(),
  createdBy: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** The create answer: `secret` only when Headspace generated it, and only in this answer. */
export const createdWebhookSchema = webhookViewSchema.extend({ secret: z.string().optional() });

export const webhookDeliveryViewSchema = z.object({
  deliveryId: z.string(),
  eventId: z.string(),
  eventType: z.string(),
  origin: z.string(),
  state: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  responseStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  scheduledAt: z.string(),
  finishedAt: z.string().nullable(),
});

export type WebhookView = z.output<typeof webhookViewSchema>;
export type WebhookDeliveryView = z.output<typeof webhookDeliveryViewSchema>;
