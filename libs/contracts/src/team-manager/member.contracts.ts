import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { memberNameSchema, sandboxOverrideSchema, sandboxSchema, teamNameSchema } from './team.contracts';

/** The lane teammate sessions run in (the seed's AGENT_LANE_TEAMMATE). */
export const TEAMMATE_LANE = 'teammate';

export const agentIdSchema = z
  .string()
  .regex(/^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/, 'must be 1-64 letters, digits, dashes or underscores, starting with a letter or digit');

/** `agent:{agentId}:teammate:{uuid}` — the seed's session key format. */
export const teammateSessionKey = (agentId: string, uuid: string) => `agent:${agentId}:teammate:${uuid}`;
export const TEAMMATE_SESSION_KEY = /^agent:[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}:teammate:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const memberStatusSchema = z.enum(['active', 'idle', 'terminated']);
export type MemberStatus = z.infer<typeof memberStatusSchema>;

const taskText = z.string().min(1).max(20_000);
const modelSchema = z.string().min(1).max(200);
const agentTypeSchema = z.string().min(1).max(100);

/** What the orchestrator needs to run a teammate's session (spawnSubagentDirect's arguments). */
export const spawnSpecSchema = z.object({
  memberId: z.string(),
  team: z.string(),
  name: z.string(),
  agentId: z.string(),
  sessionKey: z.string(),
  lane: z.literal(TEAMMATE_LANE),
  mode: z.literal('session'),
  agentType: z.string(),
  model: z.string().optional(),
  sandbox: sandboxSchema,
  depth: z.number().int(),
  maxDepth: z.number().int(),
  /** The member that spawned it: the lead, or a teammate spawning a sub-agent. */
  parent: z.string(),
  task: z.string(),
  initialPrompt: z.string(),
});
export type SpawnSpec = z.infer<typeof spawnSpecSchema>;

export const teammateSpawned = defineEvent({
  service: 'team-manager',
  category: 'teammate',
  name: 'spawned',
  schema: spawnSpecSchema.omit({ team: true }).extend({ spawnedAt: z.iso.datetime() }),
});

export const teammateIdle = defineEvent({
  service: 'team-manager',
  category: 'teammate',
  name: 'idle',
  schema: z.object({ name: memberNameSchema, summary: z.string().max(500).optional(), idleAt: z.iso.datetime() }),
});

/** The announce flow: a teammate reports completion, addressed to the lead. */
export const teammateAnnounced = defineEvent({
  service: 'team-manager',
  category: 'teammate',
  name: 'announced',
  schema: z.object({
    announcementId: z.string(),
    name: memberNameSchema,
    sessionKey: z.string(),
    to: z.string(),
    outcome: z.enum(['completed', 'failed']),
    summary: z.string().max(2_000),
    result: z.string().max(20_000).optional(),
    announcedAt: z.iso.datetime(),
  }),
});

export const teammateTerminated = defineEvent({
  service: 'team-manager',
  category: 'teammate',
  name: 'terminated',
  schema: z.object({
    name: memberNameSchema,
    sessionKey: z.string(),
    reason: z.enum(['shutdown-approved', 'went-idle-during-shutdown', 'team-shutdown', 'forced', 'shutdown-timeout']),
    terminatedAt: z.iso.datetime(),
  }),
});

const memberRef = { team: teamNameSchema, member: memberNameSchema };

export const spawnTeammate = defineCommand({
  service: 'team-manager',
  name: 'spawn-teammate',
  request: z.object({
    team: teamNameSchema,
    name: memberNameSchema,
    agentId: agentIdSchema.default('default'),
    agentType: agentTypeSchema.optional(),
    model: modelSchema.optional(),
    sandbox: sandboxOverrideSchema.optional(),
    task: taskText,
    /** A teammate spawning a sub-agent names itself here; absent = spawned by the lead. */
    parent: memberNameSchema.optional(),
  }),
  /** `inbox`: the teammate's mailbox inbox, opened (open-inbox) as part of the spawn. */
  response: spawnSpecSchema.extend({ streamVersion: z.string(), inbox: z.object({ team: z.string(), memberId: z.string() }) }),
});

export const reportTeammateIdle = defineCommand({
  service: 'team-manager',
  name: 'report-teammate-idle',
  request: z.object({ ...memberRef, summary: z.string().max(500).optional() }),
  response: z.object({ team: z.string(), member: z.string(), status: memberStatusSchema, countedAsShutdownApproval: z.boolean(), streamVersion: z.string() }),
});

export const announceTeammateCompletion = defineCommand({
  service: 'team-manager',
  name: 'announce-teammate-completion',
  request: z.object({
    ...memberRef,
    outcome: z.enum(['completed', 'failed']).default('completed'),
    summary: z.string().min(1).max(2_000),
    result: z.string().max(20_000).optional(),
  }),
  response: z.object({ announcementId: z.string(), to: z.string(), streamVersion: z.string() }),
});

export const rosterMemberSchema = z.object({
  name: z.string(),
  role: z.enum(['lead', 'teammate']),
  memberId: z.string().nullable(),
  agentId: z.string().nullable(),
  agentType: z.string(),
  model: z.string().nullable(),
  status: memberStatusSchema,
  sessionKey: z.string().nullable(),
  lane: z.string().nullable(),
  depth: z.number().int(),
  parent: z.string().nullable(),
  task: z.string().nullable(),
  sandbox: sandboxSchema.nullable(),
});
export type RosterMember = z.infer<typeof rosterMemberSchema>;

export const listTeammates = defineQuery({
  service: 'team-manager',
  name: 'list-teammates',
  request: z.object({ team: teamNameSchema, status: memberStatusSchema.optional() }),
  response: z.object({ team: z.string(), members: z.array(rosterMemberSchema) }),
});

/** What a new teammate is told about its team when its session starts. */
export const getTeammateInjection = defineQuery({
  service: 'team-manager',
  name: 'get-teammate-injection',
  request: z.object({ ...memberRef }),
  response: z.object({
    team: z.object({ name: z.string(), description: z.string().nullable(), status: z.string() }),
    lead: z.object({ name: z.string(), agentType: z.string() }),
    you: rosterMemberSchema,
    members: z.array(z.object({ name: z.string(), role: z.string(), agentType: z.string(), status: memberStatusSchema })),
    /** The rendered `<team-state>` block prepended to the teammate's first turn. */
    injection: z.string(),
  }),
});

export const listTeammateAnnouncements = defineQuery({
  service: 'team-manager',
  name: 'list-teammate-announcements',
  request: z.object({ team: teamNameSchema, to: z.string().max(100).optional() }),
  response: z.object({
    announcements: z.array(
      z.object({ announcementId: z.string(), from: z.string(), to: z.string(), outcome: z.string(), summary: z.string(), result: z.string().nullable(), announcedAt: z.string() }),
    ),
  }),
});

export const memberEvents = [teammateSpawned, teammateIdle, teammateAnnounced, teammateTerminated];
