import { z } from 'zod';

const whole = (min: number, max: number, unit: string) =>
  z.coerce.number({ error: `must be a whole number of ${unit}` }).int({ error: `must be a whole number of ${unit}` }).min(min).max(max);

/** Leon's remediation (ADR 0024), spread into ops-leon's config schema. */
export const remediationConfigShape = {
  /** A trusted project's fixes of this severity or lower run without an approval (audited as approvalSkipped 'trusted'). */
  HS_OPS_TRUSTED_AUTOFIX_MAX_SEVERITY: z.enum(['warning', 'error', 'critical'], { error: 'must be warning, error or critical' }).default('warning'),
  /** How long a fix approval waits for an answer; then the default answer (deny) applies. */
  HS_OPS_FIX_APPROVAL_TIMEOUT_MS: whole(100, 30 * 86_400_000, 'milliseconds').default(86_400_000),
  /** How often the remediation worker looks for due steps (and fixes whose verification window ended). */
  HS_OPS_REMEDIATION_POLL_MS: whole(20, 600_000, 'milliseconds').default(1_000),
};

export type RemediationConfig = z.output<z.ZodObject<typeof remediationConfigShape>>;
