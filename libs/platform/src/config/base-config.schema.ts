import { hostname } from 'node:os';
import { z } from 'zod';
import { byteSizeSchema, durationSchema } from './stream-limits.schema';

const POSTGRES_PROTOCOLS = new Set(['postgres:', 'postgresql:']);
const NATS_PROTOCOLS = new Set(['nats:', 'tls:']);

function hasProtocol(value: string, protocols: Set<string>): boolean {
  try {
    const url = new URL(value);
    return protocols.has(url.protocol) && url.hostname !== '';
  } catch {
    return false;
  }
}

/** The servers of a comma-separated NATS_URL. */
export function natsServers(natsUrl: string): string[] {
  return natsUrl
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

const PORT_MESSAGE = 'must be a number between 1 and 65535';

/** An HTTP port variable; apps give their own default. */
export function portSchema(defaultPort?: number) {
  const port = z.coerce
    .number({ error: PORT_MESSAGE })
    .int({ error: PORT_MESSAGE })
    .min(1, { error: PORT_MESSAGE })
    .max(65535, { error: PORT_MESSAGE });
  return defaultPort === undefined ? port : port.default(defaultPort);
}

function positiveInt(defaultValue: number) {
  const message = 'must be a positive integer';
  return z.coerce
    .number({ error: message })
    .int({ error: message })
    .positive({ error: message })
    .default(defaultValue);
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const baseConfigSchema = z.object({
  HTTP_PORT: portSchema(),
  DATABASE_URL: z
    .string()
    .refine((v) => hasProtocol(v, POSTGRES_PROTOCOLS), {
      error: 'must be a postgres:// or postgresql:// URL',
    }),
  NATS_URL: z.string().refine(
    (v) => {
      const servers = natsServers(v);
      return servers.length > 0 && servers.every((s) => hasProtocol(s, NATS_PROTOCOLS));
    },
    { error: 'must be one or more comma-separated nats:// or tls:// URLs' },
  ),
  /** NATS credentials of this service (one of: user + password, an nkey seed file, a JWT .creds file) and TLS; see nats-connection.ts. */
  NATS_USER: z.string().optional(),
  NATS_PASSWORD: z.string().optional(),
  NATS_NKEY_SEED_FILE: z.string().optional(),
  NATS_CREDS: z.string().optional(),
  NATS_TLS_CA: z.string().optional(),
  NATS_TLS_CERT: z.string().optional(),
  NATS_TLS_KEY: z.string().optional(),
  /** The internal port of GET /metrics (not the public HTTP_PORT); default HTTP_PORT + 1000. */
  METRICS_PORT: portSchema().optional(),
  /** Address the metrics port binds; 0.0.0.0 only where the network is private (a pod, a compose network). */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  SERVICE_INSTANCE_ID: z
    .string()
    .regex(/^[\w.-]+$/, { error: 'must contain only letters, digits, ".", "_" and "-"' })
    .default(() => `${hostname()}-${process.pid}`),
  SHUTDOWN_TIMEOUT_MS: positiveInt(10_000),
  MIGRATE_ON_START: z.stringbool({ error: 'must be true or false' }).default(true),
  PG_POOL_MAX: positiveInt(10),
  /** The longest a query with a min-position (reading one's own writes) waits for the read models. */
  HS_READ_WAIT_MAX_MS: positiveInt(5_000),
  /** The oldest open transaction holding the cluster-wide xid8 fence longer than this is logged and exported (headspace.event_store.fence_held). */
  HS_FENCE_WARN_MS: positiveInt(1_000),
  /**
   * Appends announced over PostgreSQL NOTIFY and other replicas' announcements LISTENed for, so a
   * replica's processors see another's appends at once (off: they see them at their next idle poll).
   */
  HS_APPEND_WAKEUPS: z.stringbool({ error: 'must be true or false' }).default(true),
  /** Prefix of every NATS subject and stream (see contracts' namespace.ts); empty for none. */
  HS_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, { error: 'must be 1-32 lowercase letters, digits or dashes' })
    .optional(),
  /** Retention of the JetStream event streams (the PostgreSQL log stays the truth): e.g. `30d`; unset = unlimited. */
  HS_STREAM_MAX_AGE: durationSchema.optional(),
  /** Size cap of each JetStream event stream, oldest discarded first: e.g. `10GB`; unset = unlimited. */
  HS_STREAM_MAX_BYTES: byteSizeSchema.optional(),
  /** Replicas of each JetStream event stream a service creates (3 on a 3-node cluster); an existing stream's higher count is kept. */
  HS_JETSTREAM_REPLICAS: z.coerce.number({ error: 'must be 1 to 5' }).int({ error: 'must be 1 to 5' }).min(1, { error: 'must be 1 to 5' }).max(5, { error: 'must be 1 to 5' }).default(1),
  /** Storage of each JetStream event stream a service creates; an existing stream's is kept (reported as drift). */
  HS_JETSTREAM_STORAGE: z.enum(['file', 'memory'], { error: 'must be file or memory' }).default('file'),
  /** The JetStream cluster new event streams are placed on; unset = the server's choice. */
  HS_JETSTREAM_PLACEMENT_CLUSTER: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, { error: 'must be a cluster name' }).optional(),
  /** Comma-separated server tags new event streams are placed on (every tag must match), e.g. `ssd,az:eu-1a`. */
  HS_JETSTREAM_PLACEMENT_TAGS: z
    .string()
    .regex(/^[^\s,]+(,[^\s,]+)*$/, { error: 'must be comma-separated tags without spaces' })
    .transform((tags) => tags.split(','))
    .optional(),
  /** `off`: the service reports none of its own unhandled errors to Leon (error-reporting/). */
  HS_REPORT_ERRORS: z.stringbool({ error: 'must be on or off' }).default(true),
  /** The environment named on the errors the service reports. */
  HS_ENVIRONMENT: z.string().min(1).max(64).default('development'),
});

export type BaseConfig = z.output<typeof baseConfigSchema>;
