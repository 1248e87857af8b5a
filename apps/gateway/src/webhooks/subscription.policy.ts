import { z } from 'zod';
import { isKnownEventPattern, matchesEventPattern } from './known-event-types';

const name = z.string().min(1).max(64).regex(/^[a-z0-9][a-z0-9-]*$/, { error: 'must be lowercase letters, digits and dashes' });

/** http(s) only, and no credentials in the URL: they would be stored and shown in the clear (the secret signs instead). */
export const webhookUrlSchema = z
  .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
  .max(2_000)
  // Zod runs this check even after the URL or length check failed: an unparsable value is left to those.
  .refine((u) => {
    const parsed = URL.parse(u);
    return !parsed || (parsed.username === '' && parsed.password === '');
  }, { error: 'must not carry credentials (user:password@); the subscription secret signs each delivery' });

export const eventTypesSchema = z
  .array(z.string().max(200).refine(isKnownEventPattern, { error: 'is not a known event type, `<category>.*` or `*`' }))
  .min(1)
  .max(100);

export const webhookSecretSchema = z.string().min(16, { error: 'must be at least 16 characters' }).max(256);

export const createWebhookRequestSchema = z.strictObject({
  url: webhookUrlSchema,
  eventTypes: eventTypesSchema,
  teams: z.array(name).min(1).max(100).optional(),
  projects: z.array(name).min(1).max(100).optional(),
  /** Omitted: one is generated and shown in the answer, once. */
  secret: webhookSecretSchema.optional(),
  description: z.string().max(500).default(''),
});

export const updateWebhookRequestSchema = z.strictObject({
  id: z.string().regex(/^wh_[0-9a-f]{24}$/, { error: 'must be a webhook id (wh_…)' }),
  url: webhookUrlSchema.optional(),
  eventTypes: eventTypesSchema.optional(),
  /** null = every team / project again. */
  teams: z.array(name).min(1).max(100).nullable().optional(),
  projects: z.array(name).min(1).max(100).nullable().optional(),
  secret: webhookSecretSchema.optional(),
  description: z.string().max(500).optional(),
  enabled: z.boolean().optional(),
});

export type CreateWebhookRequest = z.output<typeof createWebhookRequestSchema>;
export type UpdateWebhookRequest = z.output<typeof updateWebhookRequestSchema>;

export interface SubscriptionFilter {
  id: string;
  eventTypes: string[];
  teams: string[] | null;
  projects: string[] | null;
}

/** What the filters look at in one event. */
export interface EventFacts {
  type: string;
  team?: string;
  project?: string;
}

/** A subscription with a team (project) filter receives only events that name one of its teams (projects). */
export function subscriptionMatches(sub: SubscriptionFilter, event: EventFacts): boolean {
  if (!sub.eventTypes.some((p) => matchesEventPattern(p, event.type))) return false;
  if (sub.teams && (event.team === undefined || !sub.teams.includes(event.team))) return false;
  if (sub.projects && (event.project === undefined || !sub.projects.includes(event.project))) return false;
  return true;
}
