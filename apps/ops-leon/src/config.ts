import type { ServiceName } from '@headspace/contracts';
import { baseConfigSchema, portSchema } from '@headspace/platform';
import { z } from 'zod';
import { notificationsConfigShape } from './notifications/notifications.config';
import { internalReportsConfigShape } from './internal-reports/internal-reports.config';
import { modelConfigShape } from './model/model.config';
import { triageConfigShape } from './triage/triage.config';
import { remediationConfigShape } from './remediation/remediation.config';

export const SERVICE: ServiceName = 'ops-leon';

const int = (min: number, max: number, unit: string) => z.coerce.number({ error: `must be a whole number of ${unit}` }).int({ error: `must be a whole number of ${unit}` }).min(min).max(max);

export const configSchema = baseConfigSchema.extend({
  HTTP_PORT: portSchema(3004),
  /** Raw events kept per group (the newest), for the group view; 0 keeps none. */
  HS_OPS_SAMPLE_EVENTS: int(0, 1_000, 'events').default(20),
  /** Events a project may send per minute (per ops-leon instance); over it ingest answers 429 and records nothing. 0: no limit. */
  HS_OPS_RATE_LIMIT_PER_MIN: int(0, 100_000_000, 'events').default(120_000),
  /** Streams each project's ingested events are spread over (by event id), so concurrent ingest does not queue on one stream. */
  HS_OPS_INGEST_SHARDS: int(1, 256, 'shards').default(16),
  /** A group spikes when its events in the last window reach this many times its baseline per window. */
  HS_OPS_SPIKE_FACTOR: z.coerce.number({ error: 'must be a number of at least 1.5' }).min(1.5).max(1_000).default(5),
  HS_OPS_SPIKE_WINDOW_SEC: int(5, 3_600, 'seconds').default(60),
  /** Windows before the current one whose mean is the baseline. */
  HS_OPS_SPIKE_BASELINE_WINDOWS: int(1, 1_440, 'windows').default(30),
  /** Fewer events than this in a window is never a spike. */
  HS_OPS_SPIKE_MIN_EVENTS: int(1, 10_000_000, 'events').default(50),
  /** How long ingest trusts what it cached of a project's keys and a group's lifecycle before reading them again. */
  HS_OPS_STATE_CACHE_MS: int(0, 600_000, 'milliseconds').default(2_000),
  ...notificationsConfigShape,
  ...internalReportsConfigShape,
  ...modelConfigShape,
  ...triageConfigShape,
  ...remediationConfigShape,
});

export type AppConfig = z.output<typeof configSchema>;
