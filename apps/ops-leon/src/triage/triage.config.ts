import { z } from 'zod';

const whole = (min: number, max: number, unit: string) =>
  z.coerce.number({ error: `must be a whole number of ${unit}` }).int({ error: `must be a whole number of ${unit}` }).min(min).max(max);

/** Leon's triage variables, spread into ops-leon's config schema. */
export const triageConfigShape = {
  /** `model`: rules, then the light (and deep) model; `rules`: rules only; `off`: groups stay NEW. */
  HS_OPS_TRIAGE: z.enum(['model', 'rules', 'off'], { error: 'must be model, rules or off' }).default('model'),
  /** How often the triage worker looks for groups waiting in ANALYSING. */
  HS_OPS_TRIAGE_POLL_MS: whole(50, 60_000, 'milliseconds').default(500),
  /** The window the frequency rule counts events in. */
  HS_OPS_TRIAGE_WINDOW_SEC: whole(60, 7 * 86_400, 'seconds').default(3_600),
  /** Events in the window from which a group is frequent (one notch up). */
  HS_OPS_TRIAGE_FREQUENT_EVENTS: whole(1, 100_000_000, 'events').default(100),
};

export type TriageConfig = z.output<z.ZodObject<typeof triageConfigShape>>;
