import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { teamNameSchema } from './team.contracts';

/**
 * Task list of a team (seed 004 Feature 2, seed 003 Req 6.3).
 *
 * Streams (why two kinds):
 * - `tasklist-<team>` records which task ids exist and what they depend on. Every creation appends
 *   to it at its exact version, so the duplicate-id, unknown-dependency and cycle checks are atomic
 *   with the list they were decided against.
 * - `task-<team>.<taskId>` records one task's life (created, claimed, heartbeats, lease expiry,
 *   escalation, completion). Claims on different tasks touch different stream rows and never
 *   contend; a claim is decided against its task's stream at its exact version (read-your-writes,
 *   never the lagging board).
 * The creation transaction appends to the list stream first, then to the new task streams in id
 * order: one consistent lock order, so concurrent creations serialise instead of deadlocking.
 */

/** Task ids become part of a stream id: letters, digits, `_` and `-` (no `.`, the team/task separator). */
export const taskIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'must be 1-64 characters of letters, digits, "_" and "-", starting with a letter or digit');
/** Who claims: a member name or session key (`agent:{agentId}:teammate:{uuid}`). */
export const taskOwnerSchema = z.string().min(1).max(200);
export const taskSubjectSchema = z.string().min(1).max(200);
export const taskDescriptionSchema = z.string().max(10_000);
export const taskActiveFormSchema = z.string().min(1).max(200);
export const taskMetadataValueSchema = z.union([z.string().max(500), z.number(), z.boolean()]);
export const taskMetadataSchema = z
  .record(z.string().min(1).max(64), taskMetadataValueSchema)
  .refine((m) => Object.keys(m).length <= 50, 'at most 50 metadata keys');
/** Files or globs a task owns (seed 003 Req 6.3/6.9: decomposition by file ownership). */
export const taskFilesSchema = z.array(z.string().min(1).max(500)).max(100);
/** A lease: 100 ms (tests) to 24 h. */
export const leaseMsSchema = z.number().int().min(100).max(86_400_000);

export const taskStatusSchema = z.enum(['pending', 'claimed', 'completed', 'escalated']);
export type TaskStatus = z.infer<typeof taskStatusSchema>;

export const taskListStreamId = (team: string) => `tasklist-${team}`;
export const taskStreamId = (team: string, taskId: string) => `task-${team}.${taskId}`;

const taskDefinitionData = {
  team: teamNameSchema,
  taskId: taskIdSchema,
  subject: taskSubjectSchema,
  description: taskDescriptionSchema,
  activeForm: taskActiveFormSchema.optional(),
  dependsOn: z.array(taskIdSchema).max(100),
  metadata: taskMetadataSchema,
  files: taskFilesSchema.default([]),
  maxAttempts: z.number().int().min(1).max(100),
};

// ---- events -------------------------------------------------------------------------------------

export const taskListTasksAdded = defineEvent({
  service: 'team-manager',
  category: 'tasklist',
  name: 'tasks-added',
  schema: z.object({
    team: teamNameSchema,
    tasks: z.array(z.object({ taskId: taskIdSchema, dependsOn: z.array(taskIdSchema) })).min(1),
    addedAt: z.iso.datetime(),
  }),
});

export const taskCreated = defineEvent({
  service: 'team-manager',
  category: 'task',
  name: 'created',
  schema: z.object({ ...taskDefinitionData, createdAt: z.iso.datetime() }),
});

export const taskClaimed = defineEvent({
  service: 'team-manager',
  category: 'task',
  name: 'claimed',
  schema: z.object({
    team: teamNameSchema,
    taskId: taskIdSchema,
    owner: taskOwnerSchema,
    activeForm: taskActiveFormSchema.optional(),
    /** 1 for the first claim; every lease expiry makes the next claim another attempt. */
    attempt: z.number().int().min(1),
    leaseMs: leaseMsSchema,
    leaseExpiresAt: z.iso.datetime(),
    claimedAt: z.iso.datetime(),
  }),
});

export const taskHeartbeat = defineEvent({
  service: 'team-manager',
  category: 'task',
  name: 'heartbeat',
  schema: z.object({
    team: teamNameSchema,
    taskId: taskIdSchema,
    owner: taskOwnerSchema,
    activeForm: taskActiveFormSchema.optional(),
    leaseExpiresAt: z.iso.datetime(),
    at: z.iso.datetime(),
  }),
});

export const taskLeaseExpired = defineEvent({
  service: 'team-manager',
  category: 'task',
  name: 'lease-expired',
  schema: z.object({
    team: teamNameSchema,
    taskId: taskIdSchema,
    owner: taskOwnerSchema,
    attempt: z.number().int().min(1),
    leaseExpiresAt: z.iso.datetime(),
    expiredAt: z.iso.datetime(),
  }),
});

/** The owner gave up: a failed attempt, its reason kept so the next claimer does not repeat it. */
export const taskReleased = defineEvent({
  service: 'team-manager',
  category: 'task',
  name: 'released',
  schema: z.object({
    team: teamNameSchema,
    taskId: taskIdSchema,
    owner: taskOwnerSchema,
    attempt: z.number().int().min(1),
    reason: z.string().min(1).max(2_000),
    releasedAt: z.iso.datetime(),
  }),
});

export const taskEscalated = defineEvent({
  service: 'team-manager',
  category: 'task',
  name: 'escalated',
  schema: z.object({
    team: teamNameSchema,
    taskId: taskIdSchema,
    attempts: z.number().int().min(1),
    reason: z.string().max(500),
    escalatedAt: z.iso.datetime(),
  }),
});

export const taskCompleted = defineEvent({
  service: 'team-manager',
  category: 'task',
  name: 'completed',
  schema: z.object({
    team: teamNameSchema,
    taskId: taskIdSchema,
    owner: taskOwnerSchema,
    result: z.string().max(10_000).optional(),
    completedAt: z.iso.datetime(),
  }),
});

export const taskEvents = [taskListTasksAdded, taskCreated, taskClaimed, taskHeartbeat, taskLeaseExpired, taskReleased, taskEscalated, taskCompleted];

// ---- commands -----------------------------------------------------------------------------------

export const newTaskSchema = z.object({
  /** Given by the caller (the seed's "task with ID 5") or derived from the command id. */
  id: taskIdSchema.optional(),
  subject: taskSubjectSchema,
  description: taskDescriptionSchema.default(''),
  activeForm: taskActiveFormSchema.optional(),
  /** Immutable. Ids of tasks that exist already or are created in the same command. */
  dependsOn: z.array(taskIdSchema).max(100).default([]),
  metadata: taskMetadataSchema.default({}),
  /** Immutable. Files or globs this task owns. */
  files: taskFilesSchema.default([]),
  /** Failed attempts (expired leases) before the task escalates instead of returning to the queue. */
  maxAttempts: z.number().int().min(1).max(100).optional(),
});

const createdTaskResponse = z.object({ taskId: z.string(), streamVersion: z.string() });

export const createTask = defineCommand({
  service: 'team-manager',
  name: 'create-task',
  request: newTaskSchema.extend({ team: teamNameSchema }),
  response: createdTaskResponse,
});

/** A batch (a PM decomposition): tasks may depend on each other; a cycle refuses the whole batch. */
export const createTasks = defineCommand({
  service: 'team-manager',
  name: 'create-tasks',
  request: z.object({ team: teamNameSchema, tasks: z.array(newTaskSchema).min(1).max(200) }),
  response: z.object({ taskIds: z.array(z.string()), streamVersion: z.string() }),
});

const claimResponse = z.object({
  taskId: z.string(),
  owner: z.string(),
  attempt: z.number(),
  leaseExpiresAt: z.string(),
  /** The task stream's version after the claim (the compare-and-set moved it by exactly one). */
  streamVersion: z.string(),
});

export const claimTask = defineCommand({
  service: 'team-manager',
  name: 'claim-task',
  request: z.object({
    team: teamNameSchema,
    taskId: taskIdSchema,
    owner: taskOwnerSchema,
    activeForm: taskActiveFormSchema.optional(),
    leaseMs: leaseMsSchema.optional(),
    /**
     * Optimistic concurrency made explicit: claim only if the task stream is still at this version
     * (no retry; a mismatch is EVENTSTORE.WRONG_EXPECTED_VERSION and nothing is written).
     */
    expectedVersion: z.string().regex(/^\d{1,18}$/, 'must be a stream version (decimal digits)').optional(),
  }),
  response: claimResponse,
});

export const heartbeatTask = defineCommand({
  service: 'team-manager',
  name: 'heartbeat-task',
  request: z.object({
    team: teamNameSchema,
    taskId: taskIdSchema,
    owner: taskOwnerSchema,
    activeForm: taskActiveFormSchema.optional(),
    leaseMs: leaseMsSchema.optional(),
  }),
  response: z.object({ taskId: z.string(), leaseExpiresAt: z.string(), streamVersion: z.string() }),
});

/** The owner gives the task back as a failed attempt, saying what did not work. */
export const releaseTask = defineCommand({
  service: 'team-manager',
  name: 'release-task',
  request: z.object({ team: teamNameSchema, taskId: taskIdSchema, owner: taskOwnerSchema, reason: z.string().min(1).max(2_000) }),
  response: z.object({ taskId: z.string(), attempt: z.number(), escalated: z.boolean(), streamVersion: z.string() }),
});

export const completeTask = defineCommand({
  service: 'team-manager',
  name: 'complete-task',
  request: z.object({ team: teamNameSchema, taskId: taskIdSchema, owner: taskOwnerSchema, result: z.string().max(10_000).optional() }),
  response: z.object({ taskId: z.string(), streamVersion: z.string() }),
});

// ---- queries ------------------------------------------------------------------------------------

export const taskViewSchema = z.object({
  taskId: z.string(),
  subject: z.string(),
  description: z.string(),
  activeForm: z.string().nullable(),
  status: taskStatusSchema,
  owner: z.string().nullable(),
  dependsOn: z.array(z.string()),
  /** Computed: the dependencies not completed yet. */
  blockedBy: z.array(z.string()),
  blocked: z.boolean(),
  metadata: z.record(z.string(), z.unknown()),
  files: z.array(z.string()),
  /** Failed attempts (releases and expired leases), oldest first. */
  failedApproaches: z.array(z.object({ attempt: z.number(), owner: z.string(), reason: z.string(), at: z.string() })),
  attempts: z.number(),
  maxAttempts: z.number(),
  leaseExpiresAt: z.string().nullable(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
});
export type TaskView = z.infer<typeof taskViewSchema>;

export const listTasks = defineQuery({
  service: 'team-manager',
  name: 'list-tasks',
  request: z.object({
    team: teamNameSchema,
    status: taskStatusSchema.optional(),
    /** true: pending tasks waiting on dependencies; false: tasks with nothing blocking them. */
    blocked: z.boolean().optional(),
    owner: taskOwnerSchema.optional(),
    /** Tasks whose metadata contains all these key/value pairs. */
    metadata: taskMetadataSchema.optional(),
    /** Tasks that own this file (exact entry of their `files`). */
    file: z.string().min(1).max(500).optional(),
    /** Only these tasks (a lookup by id, however large the board). */
    taskIds: z.array(taskIdSchema).min(1).max(100).optional(),
    limit: z.number().int().min(1).max(1_000).default(500),
  }),
  response: z.object({ tasks: z.array(taskViewSchema) }),
});
