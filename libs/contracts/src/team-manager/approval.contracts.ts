import { z } from 'zod';
import { API_JSON_BOUNDS, withinJsonBounds } from '../json.contracts';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { teamNameSchema } from './team.contracts';

/**
 * The approvals queue: one typed queue for everything that waits on a human or the lead. A request
 * names its requester, carries a payload, and has a timeout with a default answer; the first
 * decision (an answer, or the timeout's default) is final. Every decision is an `approval.decided`.
 */
export const approvalKinds = ['plan-approval', 'permission-request', 'budget-overrun', 'fix-approval', 'skill-file-update'] as const;
export const approvalKindSchema = z.enum(approvalKinds);
export const approvalAnswerSchema = z.enum(['approve', 'deny']);
export const approvalStatusSchema = z.enum(['pending', 'approved', 'denied']);

export const approvalStreamId = (approvalId: string) => `approval-${approvalId}`;

/** Payloads stay small and shallow: they travel in events and NATS messages. */
export const APPROVAL_PAYLOAD_MAX_BYTES = 16_384;
export const approvalPayloadSchema = z
  .record(z.string().max(100), z.unknown())
  .superRefine(withinJsonBounds({ maxDepth: API_JSON_BOUNDS.maxDepth, maxBytes: APPROVAL_PAYLOAD_MAX_BYTES }));
/** As recorded: payloads requested before the depth bound existed stay readable. */
const recordedApprovalPayloadSchema = z
  .record(z.string().max(100), z.unknown())
  .refine((payload) => new TextEncoder().encode(JSON.stringify(payload)).length <= APPROVAL_PAYLOAD_MAX_BYTES, {
    message: `must be at most ${APPROVAL_PAYLOAD_MAX_BYTES} bytes of JSON`,
  });

const actor = z.string().min(1).max(200);
const MAX_TIMEOUT_MS = 30 * 24 * 3_600_000;

export const approvalRequested = defineEvent({
  service: 'team-manager',
  category: 'approval',
  name: 'requested',
  schema: z.object({
    approvalId: z.string(),
    team: teamNameSchema,
    kind: approvalKindSchema,
    requester: actor,
    summary: z.string().max(500),
    payload: recordedApprovalPayloadSchema,
    defaultAnswer: approvalAnswerSchema,
    timeoutMs: z.number().int().positive(),
    requestedAt: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
  }),
});

/** The timeout passed with no answer: followed by the default answer as `approval.decided`. */
export const approvalTimedOut = defineEvent({
  service: 'team-manager',
  category: 'approval',
  name: 'timed-out',
  schema: z.object({
    approvalId: z.string(),
    team: teamNameSchema,
    kind: approvalKindSchema,
    defaultAnswer: approvalAnswerSchema,
    expiresAt: z.iso.datetime(),
    timedOutAt: z.iso.datetime(),
  }),
});

export const approvalDecided = defineEvent({
  service: 'team-manager',
  category: 'approval',
  name: 'decided',
  schema: z.object({
    approvalId: z.string(),
    team: teamNameSchema,
    kind: approvalKindSchema,
    decision: approvalAnswerSchema,
    reason: z.string().max(2_000).optional(),
    decidedBy: actor,
    source: z.enum(['answer', 'timeout']),
    decidedAt: z.iso.datetime(),
  }),
});

export const approvalEvents = [approvalRequested, approvalTimedOut, approvalDecided];

export const approvalViewSchema = z.object({
  approvalId: z.string(),
  team: z.string(),
  kind: approvalKindSchema,
  requester: z.string(),
  summary: z.string(),
  payload: z.record(z.string(), z.unknown()),
  defaultAnswer: approvalAnswerSchema,
  status: approvalStatusSchema,
  decision: approvalAnswerSchema.optional(),
  reason: z.string().optional(),
  decidedBy: z.string().optional(),
  decisionSource: z.enum(['answer', 'timeout']).optional(),
  requestedAt: z.string(),
  expiresAt: z.string(),
  decidedAt: z.string().optional(),
});
export type ApprovalView = z.output<typeof approvalViewSchema>;

export const requestApproval = defineCommand({
  service: 'team-manager',
  name: 'request-approval',
  request: z.object({
    team: teamNameSchema,
    kind: approvalKindSchema,
    requester: actor,
    summary: z.string().min(1).max(500),
    payload: approvalPayloadSchema.default({}),
    /** How long a human or the lead has to answer; then `defaultAnswer` applies. */
    timeoutMs: z.number().int().min(100).max(MAX_TIMEOUT_MS),
    defaultAnswer: approvalAnswerSchema.default('deny'),
  }),
  response: z.object({ approvalId: z.string(), expiresAt: z.string(), streamVersion: z.string() }),
});

export const answerApproval = defineCommand({
  service: 'team-manager',
  name: 'answer-approval',
  request: z.object({
    approvalId: z.string().min(1).max(100),
    decision: approvalAnswerSchema,
    reason: z.string().max(2_000).optional(),
    answeredBy: actor,
  }),
  response: z.object({ approvalId: z.string(), status: approvalStatusSchema, streamVersion: z.string() }),
});

export const listApprovals = defineQuery({
  service: 'team-manager',
  name: 'list-approvals',
  request: z.object({
    team: teamNameSchema,
    kind: approvalKindSchema.optional(),
    status: z.enum(['pending', 'approved', 'denied', 'all']).default('pending'),
    limit: z.number().int().min(1).max(500).default(100),
  }),
  response: z.object({ approvals: z.array(approvalViewSchema) }),
});

export const getApproval = defineQuery({
  service: 'team-manager',
  name: 'get-approval',
  request: z.object({ approvalId: z.string().min(1).max(100) }),
  response: approvalViewSchema,
});
