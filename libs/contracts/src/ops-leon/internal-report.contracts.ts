import { z } from 'zod';
import { defineCommand, ServiceNames } from '../messages';
import { exceptionReportSchema } from './exception-report.contracts';

const short = (max: number) => z.string().min(1).max(max);

/** The hook that failed: its lifecycle event, handler type and command (or builtin name / prompt start). */
export const reportedHookSchema = z.object({
  event: short(64),
  type: z.enum(['command', 'prompt', 'agent', 'builtin']),
  command: short(2_000),
  /** The command's exit code; none for a timeout or a hook that could not start. */
  exitCode: z.number().int().min(-1).max(255).optional(),
});

/** Where an internal report comes from: a Headspace service's own unhandled error, or an agent hook that failed in a session. */
export const reportOriginSchema = z
  .object({
    service: z.enum(ServiceNames),
    kind: z.enum(['unhandled', 'hook']),
    runId: short(200).optional(),
    sessionId: short(200).optional(),
    team: short(200).optional(),
    /** The run's source (git URL or directory): a hook failure belongs to the ops project whose repository it is. */
    source: short(4_096).optional(),
    hook: reportedHookSchema.optional(),
  })
  .refine((o) => o.kind !== 'hook' || o.hook !== undefined, { path: ['hook'], message: 'a hook report must name its hook' });
export type ReportOrigin = z.output<typeof reportOriginSchema>;

/** The report itself: the ingest schema without its id (the command's) and source (the origin's kind). */
export const internalReportSchema = exceptionReportSchema.omit({ eventId: true, source: true });
export type InternalReport = z.input<typeof internalReportSchema>;

/**
 * Headspace reports to Leon without an ingest key: every service's unhandled errors (into the
 * internal project, HS_OPS_INTERNAL_PROJECT) and agent hook failures (into the project whose
 * repository is the run's source). Recorded through the same ingest path, once per event id.
 */
export const reportException = defineCommand({
  service: 'ops-leon',
  name: 'report-exception',
  request: z.object({
    eventId: exceptionReportSchema.shape.eventId,
    origin: reportOriginSchema,
    report: internalReportSchema,
  }),
  response: z.object({
    project: z.string(),
    eventId: z.string(),
    groupId: z.string(),
    /** False when this event id was reported before: nothing new was counted. */
    accepted: z.boolean(),
  }),
});
export type ReportExceptionRequest = z.input<typeof reportException.request>;
