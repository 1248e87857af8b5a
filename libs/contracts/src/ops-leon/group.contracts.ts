import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { exceptionLevelSchema, exceptionReportSchema, stackFrameSchema } from './exception-report.contracts';

/** A group's fix lifecycle (seed 000 §4.6), plus the ways out of it. */
export const groupStates = [
  'NEW',
  'ANALYSING',
  'FIX_PROPOSED',
  'FIX_IN_PROGRESS',
  'FIX_COMMITTED',
  'VERIFIED',
  'RESOLVED',
  'DISMISSED',
  'ESCALATED',
  'REGRESSED',
] as const;
export const groupStateSchema = z.enum(groupStates);
export type GroupState = z.output<typeof groupStateSchema>;

export const exceptionSeveritySchema = z.enum(['critical', 'error', 'warning', 'noise']);
export type ExceptionSeverity = z.output<typeof exceptionSeveritySchema>;
export const exceptionDomainSchema = z.enum(['backend', 'frontend', 'database', 'infrastructure']);
export type ExceptionDomain = z.output<typeof exceptionDomainSchema>;

/** `grp_` + 24 hex of sha256(projectId, fingerprint): the same fingerprint of a project is always the same group. */
export const groupIdSchema = z.string().regex(/^grp_[0-9a-f]{24}$/, 'must be a group id (grp_ and 24 hex characters)');

export const exceptionGroupStreamId = (groupId: string) => `exceptiongroup-${groupId}`;
/** Ingested events land on one of a project's ingest shards (by event id), never on the group's stream. */
export const exceptionIngestStreamId = (projectId: string, shard: number) => `exception-${projectId}.${shard}`;

const at = z.iso.datetime();

/**
 * One ingested exception. Appended once per (project, client event id) to an ingest shard: the
 * group's counts, first/last seen, releases and samples are the projection's fold of these.
 * Request headers that name secrets are redacted before it is recorded.
 */
export const exceptionReceived = defineEvent({
  service: 'ops-leon',
  category: 'exception',
  name: 'received',
  schema: z.object({
    project: z.string(),
    projectId: z.string(),
    groupId: z.string(),
    fingerprint: z.string(),
    receivedAt: at,
    report: exceptionReportSchema,
  }),
});

/** The first event of a fingerprint opened its group (state NEW). */
export const groupOpened = defineEvent({
  service: 'ops-leon',
  category: 'group',
  name: 'opened',
  schema: z.object({
    groupId: z.string(),
    project: z.string(),
    projectId: z.string(),
    fingerprint: z.string(),
    type: z.string(),
    /** The message with ids, numbers and quoted values templated out. */
    title: z.string(),
    /** The innermost in-app frame (`module in function`), or ''. */
    culprit: z.string(),
    level: exceptionLevelSchema,
    firstEventId: z.string(),
    release: z.string().optional(),
    environment: z.string().optional(),
    at,
  }),
});

/** Its rate over the last window reached `factor` × its baseline (per window, over the preceding windows). */
export const groupSpiked = defineEvent({
  service: 'ops-leon',
  category: 'group',
  name: 'spiked',
  schema: z.object({
    groupId: z.string(),
    project: z.string(),
    windowSeconds: z.number().int(),
    count: z.number().int(),
    baseline: z.number(),
    factor: z.number(),
    at,
  }),
});

/** Every lifecycle change carries where it came from and went, who made it and why. */
const transition = {
  groupId: z.string(),
  project: z.string(),
  from: groupStateSchema,
  to: groupStateSchema,
  by: z.string(),
  reason: z.string().optional(),
  at,
};

const transitionEvent = <N extends string, S extends z.ZodRawShape>(name: N, extra: S) =>
  defineEvent({ service: 'ops-leon', category: 'group', name, schema: z.object({ ...transition, ...extra }) });

export const groupAnalysingStarted = transitionEvent('analysing-started', {});
/** Triage's verdict; the group stays ANALYSING (from = to). */
export const groupTriaged = transitionEvent('triaged', {
  severity: exceptionSeveritySchema,
  domain: exceptionDomainSchema,
  persona: z.string(),
  autoFixable: z.boolean(),
  hypothesis: z.string(),
  /** Architectural or complex: it escalates (Gavin → Robbo → operator) instead of being fixed as a task. */
  complex: z.boolean().optional(),
  /** The fix approach triage proposes (what goes into the fix approval and the run's goal). */
  approach: z.string().optional(),
  /** Which rules fired (`level=fatal → critical`, `spike`, `first seen in release 1.4`, …). */
  ruleReasons: z.array(z.string()).optional(),
  /** `rules` when the rules decided alone (noise, or no model budget); `model` when a model call did. */
  source: z.enum(['rules', 'model']).optional(),
  /** The models called (light, then deep when the light one said complex), and whether they were simulated. */
  models: z.array(z.string()).optional(),
  simulated: z.boolean().optional(),
});
export const groupFixProposed = transitionEvent('fix-proposed', {
  approvalId: z.string().optional(),
  approach: z.string().optional(),
  /** `trusted`: the project is trusted and the severity low, so no approval was asked (audited here). */
  approvalSkipped: z.enum(['trusted']).optional(),
});
export const groupFixStarted = transitionEvent('fix-started', { runId: z.string(), team: z.string().optional() });
export const groupFixCommitted = transitionEvent('fix-committed', {
  commit: z.string(),
  release: z.string().optional(),
  runId: z.string().optional(),
  /** The regression test's file, when the run reported it. */
  regressionTest: z.string().optional(),
});
/** The regression test passed on the merged result and no event of the fix's release came within the window. */
export const groupVerified = transitionEvent('verified', { windowSeconds: z.number().int().optional() });
/**
 * Resolved (verified, or by hand). `releasesBefore`: the releases it had been seen in by then, so an
 * event of another release (or of the fix's release) after it is a regression.
 */
export const groupResolved = transitionEvent('resolved', {
  manual: z.boolean(),
  fixRelease: z.string().optional(),
  releasesBefore: z.array(z.string()).max(100),
});
export const groupDismissed = transitionEvent('dismissed', {});
/** Up the ladder (seed 000 §4.7): Gavin, then Robbo, then the operator. */
export const groupEscalated = transitionEvent('escalated', { level: z.enum(['gavin', 'robbo', 'operator']).optional() });
export const groupReopened = transitionEvent('reopened', {});
/** An event of a resolved group's fingerprint after the fix: its event id and release. */
export const groupRegressed = transitionEvent('regressed', { eventId: z.string(), release: z.string().optional() });

export const groupTransitionEvents = [
  groupAnalysingStarted,
  groupTriaged,
  groupFixProposed,
  groupFixStarted,
  groupFixCommitted,
  groupVerified,
  groupResolved,
  groupDismissed,
  groupEscalated,
  groupReopened,
  groupRegressed,
];

export const groupEvents = [exceptionReceived, groupOpened, groupSpiked, ...groupTransitionEvents];

/**
 * The operator's moves on a group (triage and remediation make the others). `fix`: on an ESCALATED
 * group, the operator asks Leon to fix it after all (proposed by the operator, so no approval is asked).
 */
export const groupActionSchema = z.enum(['dismiss', 'escalate', 'resolve', 'reopen', 'fix']);

export const transitionGroup = defineCommand({
  service: 'ops-leon',
  name: 'transition-group',
  request: z
    .object({
      groupId: groupIdSchema,
      action: groupActionSchema,
      reason: z.string().min(1).max(2_000).optional(),
      actor: z.string().min(1).max(200).default('operator'),
    })
    .refine((r) => r.action !== 'dismiss' || r.reason !== undefined, { message: 'a dismissal needs a reason', path: ['reason'] }),
  response: z.object({ groupId: z.string(), state: groupStateSchema, streamVersion: z.string() }),
});

export const groupSummarySchema = z.object({
  groupId: z.string(),
  project: z.string(),
  fingerprint: z.string(),
  state: groupStateSchema,
  type: z.string(),
  title: z.string(),
  culprit: z.string(),
  level: z.string(),
  severity: exceptionSeveritySchema.nullable(),
  domain: exceptionDomainSchema.nullable(),
  persona: z.string().nullable(),
  autoFixable: z.boolean().nullable(),
  count: z.number().int(),
  firstSeen: z.string(),
  lastSeen: z.string(),
  releases: z.array(z.string()),
  environments: z.array(z.string()),
  spikedAt: z.string().nullable(),
  updatedAt: z.string(),
});
export type GroupSummary = z.output<typeof groupSummarySchema>;

export const groupSampleSchema = z.object({
  eventId: z.string(),
  receivedAt: z.string(),
  timestamp: z.string().nullable(),
  level: z.string(),
  type: z.string(),
  message: z.string(),
  handled: z.boolean().nullable(),
  frames: z.array(stackFrameSchema),
  stack: z.string().nullable(),
  platform: z.string().nullable(),
  environment: z.string().nullable(),
  release: z.string().nullable(),
  serverName: z.string().nullable(),
  tags: z.record(z.string(), z.string()),
  request: exceptionReportSchema.shape.request,
  user: exceptionReportSchema.shape.user,
  source: z.string(),
});
export type GroupSample = z.output<typeof groupSampleSchema>;

export const groupTransitionViewSchema = z.object({
  seq: z.number().int(),
  type: z.string(),
  from: groupStateSchema.nullable(),
  to: groupStateSchema,
  by: z.string(),
  reason: z.string().nullable(),
  /** The transition's own fields (severity, approvalId, runId, commit, eventId, …). */
  details: z.record(z.string(), z.unknown()),
  at: z.string(),
});
export type GroupTransitionView = z.output<typeof groupTransitionViewSchema>;

export const groupSortSchema = z.enum(['last-seen', 'count', 'first-seen']);
export type GroupSort = z.output<typeof groupSortSchema>;

/** A list-groups cursor: the sort, the last row's sort value (count digits or an ISO time) and its group id, base64url JSON. */
export function decodeGroupCursor(cursor: string): { sort: GroupSort; value: string; groupId: string } | null {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(v) || v.length !== 3 || !groupSortSchema.safeParse(v[0]).success || typeof v[1] !== 'string' || typeof v[2] !== 'string') return null;
    const ok = v[0] === 'count' ? /^\d{1,19}$/.test(v[1]) : !Number.isNaN(Date.parse(v[1]));
    return ok ? { sort: v[0] as GroupSort, value: v[1], groupId: v[2] } : null;
  } catch {
    return null;
  }
}

export const encodeGroupCursor = (sort: GroupSort, value: string, groupId: string) => Buffer.from(JSON.stringify([sort, value, groupId])).toString('base64url');

/** Checked wherever the request is parsed (the gateway too), so a forged cursor never reaches the service. */
export const groupCursorSchema = z.string().min(1).max(1_000).refine((c) => decodeGroupCursor(c) !== null, 'not a cursor this list returned');

export const listGroups = defineQuery({
  service: 'ops-leon',
  name: 'list-groups',
  request: z.object({
    project: z.string().min(1).max(100).optional(),
    state: groupStateSchema.optional(),
    severity: exceptionSeveritySchema.optional(),
    environment: z.string().min(1).max(64).optional(),
    release: z.string().min(1).max(200).optional(),
    /** Descending: most recent / most frequent / newest first. */
    sort: groupSortSchema.default('last-seen'),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    cursor: groupCursorSchema.optional(),
  }),
  response: z.object({ items: z.array(groupSummarySchema), nextCursor: z.string().nullable() }),
});

export const getGroup = defineQuery({
  service: 'ops-leon',
  name: 'get-group',
  request: z.object({ groupId: groupIdSchema }),
  response: groupSummarySchema.extend({
    /** The latest events kept (HS_OPS_SAMPLE_EVENTS per group), newest first. */
    samples: z.array(groupSampleSchema),
    transitions: z.array(groupTransitionViewSchema),
  }),
});

export const listGroupTransitions = defineQuery({
  service: 'ops-leon',
  name: 'list-group-transitions',
  request: z.object({ groupId: groupIdSchema }),
  response: z.object({ groupId: z.string(), transitions: z.array(groupTransitionViewSchema) }),
});
