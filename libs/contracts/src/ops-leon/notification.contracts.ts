import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery, type EventDefinition } from '../messages';
import { opsProjectNameSchema } from './project.contracts';

/**
 * Leon's notifications (issue 20 scope 6): per project, outbound webhooks (signed, retried) and
 * email for critical and error groups. A webhook's signing secret is write-only: it is sealed
 * (AES-256-GCM under HS_OPS_SECRET_KEY, ADR 0022) before it enters the log, and no query or
 * event ever carries it in the clear.
 */
export const NotificationErrorCodes = {
  /** HS_OPS_SECRET_KEY is not configured, so a webhook secret cannot be stored (503 by the suffix rule). */
  secretKeyUnavailable: 'NOTIFICATION.SECRET_KEY_UNAVAILABLE',
  /** No settings were ever set for the project (404 by the suffix rule). */
  settingsNotFound: 'NOTIFICATION.SETTINGS_NOT_FOUND',
} as const;

export const notificationSeveritySchema = z.enum(['critical', 'error', 'warning', 'noise']);
export type NotificationSeverity = z.output<typeof notificationSeveritySchema>;
/** Most severe first: `minSeverity: error` lets critical and error through. */
export const NOTIFICATION_SEVERITY_ORDER: readonly NotificationSeverity[] = ['critical', 'error', 'warning', 'noise'];

export const webhookFormatSchema = z.enum(['headspace', 'slack']);
const projectSchema = opsProjectNameSchema;
const webhookIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be 1-64 lowercase letters, digits or dashes');
const webhookUrlSchema = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2_048);
/** Lifecycle states (or transition names) a webhook wants; absent = every transition. */
const eventFilterSchema = z.array(z.string().min(1).max(64)).min(1).max(32);
const emailAddressSchema = z.email().max(320);

export const notificationEmailSchema = z.object({
  to: z.array(emailAddressSchema).min(1).max(20),
  /** Email goes out for critical only, or critical and error (the default). */
  minSeverity: z.enum(['critical', 'error']).default('error'),
});

/** A webhook as the caller sets it. `secret` is required for a new id, optional to keep an existing one's. */
export const webhookInputSchema = z.object({
  id: webhookIdSchema,
  url: webhookUrlSchema,
  secret: z.string().min(16, 'must be at least 16 characters').max(256).optional(),
  events: eventFilterSchema.optional(),
  minSeverity: notificationSeveritySchema.optional(),
  format: webhookFormatSchema.default('headspace'),
});

/** A webhook as recorded and served: the secret sealed, or only whether one is set. */
const webhookFields = {
  id: webhookIdSchema,
  url: webhookUrlSchema,
  events: eventFilterSchema.optional(),
  minSeverity: notificationSeveritySchema.optional(),
  format: webhookFormatSchema,
};
export const recordedWebhookSchema = z.object({
  ...webhookFields,
  /** `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url): never the secret itself. */
  sealedSecret: z.string().min(1).max(1_024),
});
export type RecordedWebhook = z.output<typeof recordedWebhookSchema>;
export const publicWebhookSchema = z.object({ ...webhookFields, secretSet: z.literal(true) });

export const notificationSettingsStreamId = (project: string) => `notification-settings-${project}`;
export const notificationDeliveryStreamId = (deliveryId: string) => `notification-delivery-${deliveryId}`;

export const notificationSettingsSet = defineEvent({
  service: 'ops-leon',
  category: 'notification-settings',
  name: 'set',
  schema: z.object({
    project: projectSchema,
    webhooks: z.array(recordedWebhookSchema).max(20),
    email: notificationEmailSchema.nullable(),
    setBy: z.string().max(200).optional(),
    setAt: z.iso.datetime(),
  }),
});

/** What a notification says: one lifecycle transition of one group. Rendered per format at send time. */
export const notificationPayloadSchema = z.object({
  project: projectSchema,
  groupId: z.string().min(1).max(200),
  /** The lifecycle event's type (`group.transitioned`, `group.opened`, …) and id. */
  eventType: z.string().max(100),
  eventId: z.string().max(100),
  from: z.string().max(64).nullable(),
  to: z.string().max(64),
  severity: notificationSeveritySchema.nullable(),
  title: z.string().max(1_000).optional(),
  reason: z.string().max(2_000).optional(),
  occurredAt: z.iso.datetime(),
});
export type NotificationPayload = z.output<typeof notificationPayloadSchema>;

const deliveryChannelSchema = z.enum(['webhook', 'email']);
const deliveryBase = { deliveryId: z.string().min(1).max(200), project: projectSchema };

export const notificationDeliveryScheduled = defineEvent({
  service: 'ops-leon',
  category: 'notification-delivery',
  name: 'scheduled',
  schema: z.object({
    ...deliveryBase,
    channel: deliveryChannelSchema,
    /** The webhook id, or `email`. */
    target: z.string().min(1).max(64),
    payload: notificationPayloadSchema,
    maxAttempts: z.number().int().min(1).max(20),
    scheduledAt: z.iso.datetime(),
  }),
});

/** One try; `ok: false` with the next try's time, unless it was the last (then `failed` follows). */
export const notificationDeliveryAttempted = defineEvent({
  service: 'ops-leon',
  category: 'notification-delivery',
  name: 'attempted',
  schema: z.object({
    ...deliveryBase,
    attempt: z.number().int().min(1),
    ok: z.boolean(),
    httpStatus: z.number().int().optional(),
    /** Why it failed: a status line or a transport error (never a body, header or secret). */
    error: z.string().max(500).optional(),
    durationMs: z.number().int().min(0),
    nextAttemptAt: z.iso.datetime().optional(),
    attemptedAt: z.iso.datetime(),
  }),
});

export const notificationDeliverySucceeded = defineEvent({
  service: 'ops-leon',
  category: 'notification-delivery',
  name: 'succeeded',
  schema: z.object({ ...deliveryBase, attempts: z.number().int().min(1), succeededAt: z.iso.datetime() }),
});

/** Given up: every attempt failed (or the target was removed from the settings). */
export const notificationDeliveryFailed = defineEvent({
  service: 'ops-leon',
  category: 'notification-delivery',
  name: 'failed',
  schema: z.object({ ...deliveryBase, attempts: z.number().int().min(0), lastError: z.string().max(500), failedAt: z.iso.datetime() }),
});

export const notificationEvents: EventDefinition[] = [
  notificationSettingsSet,
  notificationDeliveryScheduled,
  notificationDeliveryAttempted,
  notificationDeliverySucceeded,
  notificationDeliveryFailed,
];

const publicSettingsSchema = z.object({
  project: projectSchema,
  webhooks: z.array(publicWebhookSchema),
  email: notificationEmailSchema.nullable(),
  setAt: z.iso.datetime(),
  streamVersion: z.string(),
});

export const setNotificationSettings = defineCommand({
  service: 'ops-leon',
  name: 'set-notification-settings',
  request: z.object({
    project: projectSchema,
    webhooks: z
      .array(webhookInputSchema)
      .max(20)
      .default([])
      .refine((hooks) => new Set(hooks.map((h) => h.id)).size === hooks.length, 'webhook ids must be unique'),
    email: notificationEmailSchema.nullable().default(null),
    setBy: z.string().max(200).optional(),
  }),
  response: publicSettingsSchema,
});

export const getNotificationSettings = defineQuery({
  service: 'ops-leon',
  name: 'get-notification-settings',
  request: z.object({ project: projectSchema }),
  response: publicSettingsSchema,
});

export const listNotificationDeliveries = defineQuery({
  service: 'ops-leon',
  name: 'list-notification-deliveries',
  request: z.object({ project: projectSchema, limit: z.coerce.number().int().min(1).max(500).default(50) }),
  response: z.object({
    items: z.array(
      z.object({
        deliveryId: z.string(),
        channel: deliveryChannelSchema,
        target: z.string(),
        groupId: z.string(),
        to: z.string(),
        state: z.enum(['pending', 'succeeded', 'failed']),
        attempts: z.number().int(),
        lastError: z.string().nullable(),
        scheduledAt: z.iso.datetime(),
      }),
    ),
  }),
});
