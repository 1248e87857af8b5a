import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { effortLevelSchema } from '../cost-governor/routing.contracts';
import { teamNameSchema } from '../team-manager/team.contracts';
import { agentSnapshotSchema } from './agents.contracts';
import { askRoutingSchema } from './ask.contracts';
import { runSourceSchema } from './run-source';

/**
 * A self-improving loop (issue 25 scope 3, seed 003 Req 7): a task worked on by a fresh agent
 * session per iteration, each reading the loop-context file the orchestrator writes from the
 * loop's stream `loop-<loopId>`, each ending in a git checkpoint and the optional check command,
 * until one of the safety controls stops it (ADR 47).
 */
export const loopStreamId = (loopId: string) => `loop-${loopId}`;

export const loopIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be 1-63 lowercase letters, digits or dashes');
export const loopStatuses = ['running', 'succeeded', 'stopped', 'failed'] as const;
/** Why a loop ended: the check passed (or, without a check, the agent reported it done), or one of the safety controls. */
export const loopStopReasons = ['succeeded', 'max-iterations', 'stop-file', 'diff-limit', 'same-error', 'stop-requested', 'failed'] as const;
export type LoopStopReason = (typeof loopStopReasons)[number];

/** Where the loop-context file lives in the loop's worktree. */
export const LOOP_CONTEXT_FILE = '.headspace/loop-context.md';

const id = z.string().min(1).max(200);
const at = z.iso.datetime();
const sha = z.string().max(64);
/** A relative path inside the checkout: no `..`, not absolute. */
const relativePath = z
  .string()
  .min(1)
  .max(300)
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'must be a relative path inside the workspace');

const limitsSchema = z.object({
  maxIterations: z.number().int().min(1).max(100),
  /** Lines added plus deleted by one iteration (the loop-context file not counted). */
  maxDiffLines: z.number().int().min(1).max(1_000_000),
  /** Stop when the check fails with the same error signature this many iterations in a row. */
  sameErrorLimit: z.number().int().min(2).max(100),
  stopFile: relativePath,
});

const ev = <N extends string, S extends z.ZodType>(name: N, schema: S) => defineEvent({ service: 'orchestrator', category: 'loop', name, schema });

export const loopStarted = ev(
  'started',
  z.object({
    loopId: id,
    team: teamNameSchema,
    task: z.string().min(1).max(20_000),
    persona: id,
    /** The custom agent definition `agent` named, as it was then; none: a persona. */
    agentDefinition: agentSnapshotSchema.optional(),
    workspace: z.string().min(1).max(4_096),
    /** The acceptance gate: a shell command run in the checkout's sandbox after each iteration; exit 0 is success. */
    check: z.string().max(2_000).optional(),
    limits: limitsSchema,
    routing: askRoutingSchema,
    simulated: z.boolean(),
    startedAt: at,
  }),
);

/** A fresh session started on iteration `iteration`, on the checkout at `baseCommit` (the last checkpoint). */
export const loopIterationStarted = ev(
  'iteration-started',
  z.object({ loopId: id, iteration: z.number().int().positive(), sessionId: id, dir: z.string().max(4_096), branch: z.string().max(300), worktree: z.string().max(4_096), baseCommit: sha, at }),
);

export const loopCheckResultSchema = z.object({
  exitCode: z.number().int(),
  passed: z.boolean(),
  /** The failure output normalised (numbers, paths, ids out) and hashed: equal signatures are the same error. */
  signature: z.string().max(64).nullable(),
  /** The output's redacted tail. */
  output: z.string().max(10_000),
});

export const loopIterationEnded = ev(
  'iteration-ended',
  z.object({
    loopId: id,
    iteration: z.number().int().positive(),
    sessionId: id,
    /** The agent's own word on its work (its reflection's `task_result.status`), `none` without a reflection. */
    agentStatus: z.enum(['completed', 'partial', 'blocked', 'failed', 'none']),
    summary: z.string().max(5_000),
    /** The iteration's checkpoint commit (`refs/headspace/loops/<loopId>/i<n>`). */
    checkpoint: sha,
    diffLines: z.number().int().nonnegative(),
    filesChanged: z.array(z.string().max(1_000)).max(1_000),
    /** null: no check command, or not run because the diff limit was exceeded. */
    check: loopCheckResultSchema.nullable(),
    /** The session's suggested learnings, fed to the next iterations through the loop-context file. */
    learnings: z.array(z.string().max(2_000)).max(50),
    costUsd: z.string().max(40).optional(),
    at,
  }),
);

export const loopStopRequested = ev('stop-requested', z.object({ loopId: id, at }));

export const loopStopped = ev(
  'stopped',
  z.object({
    loopId: id,
    reason: z.enum(loopStopReasons),
    detail: z.string().min(1).max(5_000),
    /** The last good checkpoint the branch was reset to (a diff-limit stop). */
    revertedTo: sha.optional(),
    at,
  }),
);

export const loopEvents = [loopStarted, loopIterationStarted, loopIterationEnded, loopStopRequested, loopStopped];

// ---- requests -----------------------------------------------------------------------------------

export const startLoop = defineCommand({
  service: 'orchestrator',
  name: 'start-loop',
  request: z.object({
    loopId: loopIdSchema.optional(),
    team: teamNameSchema,
    task: z.string().trim().min(1).max(20_000),
    /** A git URL or a directory under the orchestrator's HS_SOURCE_ROOTS (the run source policy). */
    workspace: runSourceSchema,
    check: z.string().trim().min(1).max(2_000).optional(),
    maxIterations: z.number().int().min(1).max(100).default(10),
    maxDiffLines: z.number().int().min(1).max(1_000_000).default(500),
    sameErrorLimit: z.number().int().min(2).max(100).default(3),
    stopFile: relativePath.default('.auto/stop'),
    agent: z.string().regex(/^[a-z][a-z0-9-]{0,63}$/, 'must be a lower-case agent name').optional(),
    model: z.string().min(1).max(100).optional(),
    effort: effortLevelSchema.optional(),
  }),
  response: z.object({ loopId: z.string(), streamVersion: z.string(), routing: askRoutingSchema }),
});

export const stopLoop = defineCommand({
  service: 'orchestrator',
  name: 'stop-loop',
  request: z.object({ team: teamNameSchema, loopId: loopIdSchema }),
  response: z.object({ loopId: z.string(), status: z.enum(loopStatuses), stopRequested: z.boolean() }),
});

export const loopIterationViewSchema = z.object({
  iteration: z.number().int(),
  sessionId: z.string(),
  status: z.enum(['running', 'ended']),
  baseCommit: z.string(),
  agentStatus: z.string().nullable(),
  summary: z.string().nullable(),
  checkpoint: z.string().nullable(),
  diffLines: z.number().int().nullable(),
  filesChanged: z.array(z.string()),
  check: loopCheckResultSchema.nullable(),
  learnings: z.array(z.string()),
  costUsd: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
});

export const loopViewSchema = z.object({
  loopId: z.string(),
  team: z.string(),
  status: z.enum(loopStatuses),
  task: z.string(),
  persona: z.string(),
  workspace: z.string(),
  check: z.string().nullable(),
  limits: limitsSchema,
  routing: askRoutingSchema,
  simulated: z.boolean(),
  dir: z.string().nullable(),
  branch: z.string().nullable(),
  worktree: z.string().nullable(),
  iterations: z.array(loopIterationViewSchema),
  stopRequested: z.boolean(),
  stopReason: z.enum(loopStopReasons).nullable(),
  stopDetail: z.string().nullable(),
  revertedTo: z.string().nullable(),
  costUsd: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
});
export type LoopView = z.output<typeof loopViewSchema>;

export const getLoop = defineQuery({ service: 'orchestrator', name: 'get-loop', request: z.object({ loopId: id }), response: loopViewSchema });

export const listLoops = defineQuery({
  service: 'orchestrator',
  name: 'list-loops',
  request: z.object({ team: teamNameSchema, limit: z.number().int().min(1).max(200).default(50) }),
  response: z.object({
    loops: z.array(
      loopViewSchema.pick({ loopId: true, team: true, status: true, persona: true, stopReason: true, startedAt: true, endedAt: true }).extend({ iterations: z.number().int(), model: z.string() }),
    ),
  }),
});
