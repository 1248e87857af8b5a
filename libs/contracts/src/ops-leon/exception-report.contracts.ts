import { z } from 'zod';
import { defineCommand } from '../messages';

/**
 * One exception as Leon stores it, whatever it came through: the plain JSON endpoint, a Sentry
 * envelope or store request (translated at the gateway), a Headspace service's own unhandled
 * error, or an agent hook failure. Bounded so one report cannot grow the log without limit.
 */
const text = (max: number) => z.string().max(max);
const tagKey = z.string().min(1).max(64);

export const exceptionLevelSchema = z.enum(['fatal', 'error', 'warning', 'info', 'debug']);
export type ExceptionLevel = z.output<typeof exceptionLevelSchema>;

export const stackFrameSchema = z.object({
  /** Module / package path (`app.views`, `src/orders.js`). */
  module: text(512).optional(),
  function: text(512).optional(),
  filename: text(1_024).optional(),
  absPath: text(2_048).optional(),
  lineno: z.number().int().min(0).max(10_000_000).optional(),
  colno: z.number().int().min(0).max(10_000_000).optional(),
  /** The application's own code (vs a library); unknown counts as in-app. */
  inApp: z.boolean().optional(),
  contextLine: text(1_024).optional(),
});
export type StackFrame = z.output<typeof stackFrameSchema>;

export const exceptionReportSchema = z.object({
  /** The client's id for this event (Sentry `event_id`, 32 hex); the gateway makes one when absent. Retries with the same id count once. */
  eventId: z.string().regex(/^[0-9a-f]{32}$/, 'must be 32 lowercase hex characters'),
  /** Exception class / type (`TypeError`, `KeyError`); `Message` for a captured message. */
  type: text(256).min(1),
  message: text(8_192),
  level: exceptionLevelSchema.default('error'),
  /** Whether the application caught it (false = crashed the request/process). */
  handled: z.boolean().optional(),
  /** Innermost frame last (Sentry order). */
  frames: z.array(stackFrameSchema).max(200).default([]),
  /** Raw stack text when the client sent no frames (parsed best-effort by Leon). */
  stack: text(65_536).optional(),
  platform: text(64).optional(),
  environment: text(64).optional(),
  release: text(200).optional(),
  serverName: text(256).optional(),
  /** When it happened, by the client's clock. */
  timestamp: z.iso.datetime({ offset: true }).optional(),
  tags: z.record(tagKey, text(256)).refine((t) => Object.keys(t).length <= 50, 'at most 50 tags').default({}),
  /** Client-sent grouping override (Sentry `fingerprint`); `{{ default }}` entries mean Leon's own. */
  fingerprint: z.array(text(256)).min(1).max(20).optional(),
  request: z
    .object({ method: text(16).optional(), url: text(2_048).optional(), headers: z.record(z.string().max(128), text(1_024)).optional() })
    .optional(),
  user: z.object({ id: text(256).optional(), email: text(320).optional(), ipAddress: text(64).optional() }).optional(),
  /** How it reached Leon. */
  source: z.enum(['http', 'sentry-envelope', 'sentry-store', 'service', 'hook']),
  sdk: z.object({ name: text(128), version: text(64) }).optional(),
});
export type ExceptionReport = z.output<typeof exceptionReportSchema>;
export type ExceptionReportInput = z.input<typeof exceptionReportSchema>;

/**
 * The gateway hands one report to ops-leon, naming the project and the ingest key it came with;
 * ops-leon checks the key (it owns them) before anything is written.
 */
export const ingestException = defineCommand({
  service: 'ops-leon',
  name: 'ingest-exception',
  request: z.object({
    project: z.string().min(1).max(100),
    /** The DSN public key (Sentry `sentry_key`) or the `X-Headspace-Ingest-Key` of the plain endpoint. */
    publicKey: z.string().min(1).max(128),
    report: exceptionReportSchema,
    receivedAt: z.iso.datetime(),
  }),
  response: z.object({
    eventId: z.string(),
    groupId: z.string(),
    /** False when this event id was ingested before (a client retry): nothing new was counted. */
    accepted: z.boolean(),
  }),
});
