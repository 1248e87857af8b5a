import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';

/** Team names become directory and subject-safe identifiers: lowercase kebab-case, 1–64 chars. */
export const teamNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be 1-64 characters of lowercase letters, digits and dashes, starting with a letter or digit');

/** Member names (teammates and the lead): letters, digits, dashes and underscores, 1–64 chars. */
export const memberNameSchema = z
  .string()
  .regex(/^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/, 'must be 1-64 letters, digits, dashes or underscores, starting with a letter or digit');

/** The lead's name in the roster and the addressee of shutdown answers and completion announcements. */
export const TEAM_LEAD = 'team-lead';

export const teamStreamId = (teamName: string) => `team-${teamName}`;

export const teamStatusSchema = z.enum(['active', 'shutting-down', 'shutdown']);
export type TeamStatus = z.infer<typeof teamStatusSchema>;

/** Sandbox settings a team's sessions run under; teammates inherit them from the team (or their parent) unless overridden. */
export const sandboxSchema = z.object({
  mode: z.enum(['off', 'non-main', 'all']),
  workspaceAccess: z.enum(['none', 'ro', 'rw']),
  network: z.boolean(),
});
export type SandboxSettings = z.infer<typeof sandboxSchema>;
export const sandboxOverrideSchema = sandboxSchema.partial().strict();
/**
 * Sandboxed, no network: a team gets network only by asking (`sandbox: { network: true }`). Teams
 * created before sandbox settings existed (no `sandbox` in their event) read as this too; teams that
 * stored `mode: 'off'` explicitly keep it.
 */
export const DEFAULT_SANDBOX: SandboxSettings = { mode: 'all', workspaceAccess: 'rw', network: false };

const shortText = z.string().max(2_000);
const modelSchema = z.string().min(1).max(200);
const agentTypeSchema = z.string().min(1).max(100);
const metadataSchema = z
  .record(z.string().min(1).max(100), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 metadata entries');

export const teamCreated = defineEvent({
  service: 'team-manager',
  category: 'team',
  name: 'created',
  schema: z.object({
    teamId: z.string(),
    name: teamNameSchema,
    description: z.string().max(2_000).optional(),
    leadAgentType: z.string().min(1),
    metadata: z.record(z.string(), z.string()).default({}),
    /** Absent on teams created before sandbox settings existed: DEFAULT_SANDBOX applies. */
    sandbox: sandboxSchema.optional(),
    defaultModel: modelSchema.optional(),
    /** Per-team spawn depth limit; absent = the service's configured default. */
    maxSpawnDepth: z.number().int().min(1).max(10).optional(),
    createdAt: z.iso.datetime(),
  }),
});

export const shutdownRequestSchema = z.object({ member: memberNameSchema, requestId: z.string() });

/** The lead asked every live member to shut down, each with its own request_id. */
export const teamShutdownRequested = defineEvent({
  service: 'team-manager',
  category: 'team',
  name: 'shutdown-requested',
  schema: z.object({
    shutdownId: z.string(),
    requestedBy: z.string(),
    reason: shortText.optional(),
    requests: z.array(shutdownRequestSchema),
    requestedAt: z.iso.datetime(),
    /** After it a forced shutdown completes the protocol with the unanswered members recorded. */
    deadline: z.iso.datetime(),
  }),
});

/** A member's shutdown_response (implicit = it went idle during the shutdown, which counts as approval). */
export const teamShutdownResponded = defineEvent({
  service: 'team-manager',
  category: 'team',
  name: 'shutdown-responded',
  schema: z.object({
    shutdownId: z.string(),
    requestId: z.string(),
    member: memberNameSchema,
    approve: z.boolean(),
    reason: shortText.optional(),
    implicit: z.boolean(),
    to: z.string(),
    respondedAt: z.iso.datetime(),
  }),
});

/** Every member answered and at least one refused: the team stays active. */
export const teamShutdownAborted = defineEvent({
  service: 'team-manager',
  category: 'team',
  name: 'shutdown-aborted',
  schema: z.object({
    shutdownId: z.string(),
    rejections: z.array(z.object({ member: memberNameSchema, reason: z.string() })),
    abortedAt: z.iso.datetime(),
  }),
});

export const teamShutdownCompleted = defineEvent({
  service: 'team-manager',
  category: 'team',
  name: 'shutdown-completed',
  schema: z.object({
    shutdownId: z.string().optional(),
    forced: z.boolean(),
    timedOut: z.boolean(),
    /** Members that never answered (forced or timed-out shutdowns). */
    unanswered: z.array(memberNameSchema),
    reason: shortText.optional(),
    completedAt: z.iso.datetime(),
  }),
});

const teamRef = { team: teamNameSchema };

export const createTeam = defineCommand({
  service: 'team-manager',
  name: 'create-team',
  request: z.object({
    name: teamNameSchema,
    description: z.string().max(2_000).optional(),
    leadAgentType: agentTypeSchema.default('general-purpose'),
    metadata: metadataSchema.default({}),
    sandbox: sandboxOverrideSchema.optional(),
    defaultModel: modelSchema.optional(),
    maxSpawnDepth: z.number().int().min(1).max(10).optional(),
  }),
  response: z.object({ teamId: z.string(), name: z.string(), streamVersion: z.string() }),
});

const teamCommandResponse = z.object({ team: z.string(), status: teamStatusSchema, streamVersion: z.string() });

export const requestTeamShutdown = defineCommand({
  service: 'team-manager',
  name: 'request-team-shutdown',
  request: z.object({
    ...teamRef,
    requestedBy: memberNameSchema.default(TEAM_LEAD),
    reason: shortText.optional(),
    /** How long the lead waits for answers before the shutdown is forced (default 5 minutes). */
    timeoutMs: z.number().int().min(1).max(86_400_000).default(300_000),
  }),
  response: teamCommandResponse.extend({ shutdownId: z.string(), requests: z.array(shutdownRequestSchema) }),
});

export const respondTeamShutdown = defineCommand({
  service: 'team-manager',
  name: 'respond-team-shutdown',
  request: z
    .object({ ...teamRef, member: memberNameSchema, requestId: z.string().min(1).max(100), approve: z.boolean(), reason: shortText.optional() })
    .refine((r) => r.approve || (r.reason !== undefined && r.reason.trim() !== ''), { message: 'a rejection needs a reason', path: ['reason'] }),
  response: teamCommandResponse,
});

/** The lead's cleanup: refused while any member is still live (TEAM.MEMBERS_ACTIVE). */
export const completeTeamShutdown = defineCommand({
  service: 'team-manager',
  name: 'complete-team-shutdown',
  request: z.object({ ...teamRef }),
  response: teamCommandResponse,
});

/** Ends the team now whatever the members say; the members that had not answered are recorded. */
export const forceTeamShutdown = defineCommand({
  service: 'team-manager',
  name: 'force-team-shutdown',
  request: z.object({ ...teamRef, reason: shortText.optional() }),
  response: teamCommandResponse.extend({ unanswered: z.array(z.string()) }),
});

export const teamViewSchema = z.object({
  teamId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  leadAgentType: z.string(),
  metadata: z.record(z.string(), z.string()),
  sandbox: sandboxSchema,
  defaultModel: z.string().nullable(),
  maxSpawnDepth: z.number().nullable(),
  status: teamStatusSchema,
  shutdown: z
    .object({
      shutdownId: z.string().nullable(),
      outcome: z.enum(['pending', 'completed', 'aborted']),
      requestedBy: z.string().nullable(),
      deadline: z.string().nullable(),
      forced: z.boolean(),
      timedOut: z.boolean(),
      unanswered: z.array(z.string()),
      requests: z.array(
        z.object({ member: z.string(), requestId: z.string(), answer: z.enum(['pending', 'approved', 'rejected']), reason: z.string().nullable(), implicit: z.boolean() }),
      ),
    })
    .nullable(),
  createdAt: z.string(),
});
export type TeamView = z.infer<typeof teamViewSchema>;

export const getTeam = defineQuery({
  service: 'team-manager',
  name: 'get-team',
  request: z.object({ name: teamNameSchema }),
  response: teamViewSchema,
});

export const teamEvents = [teamCreated, teamShutdownRequested, teamShutdownResponded, teamShutdownAborted, teamShutdownCompleted];
