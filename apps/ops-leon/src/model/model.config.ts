import { z } from 'zod';

const whole = (min: number, max: number) => z.coerce.number({ error: 'must be a whole number' }).int({ error: 'must be a whole number' }).min(min).max(max);
const modelName = z.string().min(1).max(100);

/** The model backend Leon asks (triage, escalations), spread into ops-leon's config schema. */
export const modelConfigShape = {
  /** Real Claude when set; without it the in-process Messages-API simulator answers ("simulated"). Never logged. */
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  /** Any Messages-API-compatible server (a proxy, a gateway, a simulator elsewhere). */
  ANTHROPIC_BASE_URL: z.url({ error: 'must be an http(s) URL' }).optional(),
  /** Extra simulator scenario directories (PATH-style list), preferred over the shipped ones. */
  HS_SIMULATOR_SCENARIOS: z.string().optional(),
  /** Leon's light model: severity and domain for every group (an alias or a claude-… id). */
  HS_OPS_TRIAGE_LIGHT_MODEL: modelName.default('haiku'),
  /** Leon's deep model: the root cause when the light one says the group is complex. */
  HS_OPS_TRIAGE_DEEP_MODEL: modelName.default('sonnet'),
  /** One model call's timeout: past it the call is refused and triage falls back to its rules. */
  HS_OPS_MODEL_TIMEOUT_MS: whole(1_000, 600_000).default(60_000),
  HS_OPS_MODEL_MAX_RETRIES: whole(0, 10).default(2),
};

export type ModelConfig = z.output<z.ZodObject<typeof modelConfigShape>>;
