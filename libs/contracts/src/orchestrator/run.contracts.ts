import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { teamNameSchema } from '../team-manager/team.contracts';

/**
 * A run: the team working one goal — workshop (Robbo) → spec → decomposition (Gavin or the operator)
 * → execution (builders) → QA (Verner) → review (Robbo). Its stream `run-<runId>` is the whole story;
 * the orchestrator rebuilds a run from it after a crash and carries on from the last recorded step.
 */
export const runStreamId = (runId: string) => `run-${runId}`;

export const runModes = ['v1', 'v2', 'v3'] as const;
export const operatorModes = ['interactive', 'auto'] as const;
export const runPhases = ['workshop', 'spec-review', 'decomposition', 'tasks-review', 'execution', 'qa', 'review', 'completed', 'failed'] as const;
export const qaDecisions = ['send-back', 'fix-test', 'escalate'] as const;
/** Who works a phase; `task` is a builder's task (also a QA fix or a merge-conflict task). */
export const runSessionPurposes = ['workshop', 'decompose', 'task', 'qa', 'review'] as const;

const id = z.string().min(1).max(200);
const at = z.iso.datetime();
const text = (max: number) => z.string().max(max);
const list = (max: number) => z.array(z.string().min(1).max(2_000)).max(max);

export const runIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be 1-63 lowercase letters, digits or dashes');
export const taskKeySchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/, 'must be 1-40 letters, digits, _ or -');

export const specSchema = z.object({
  goal: z.string().min(1).max(5_000),
  acceptanceCriteria: list(50).min(1),
  constraints: list(50).default([]),
  outOfScope: list(50).default([]),
});
export type RunSpec = z.output<typeof specSchema>;

export const runTaskSchema = z.object({
  key: taskKeySchema,
  subject: z.string().min(1).max(200),
  description: text(10_000).default(''),
  /** The skill domain: the pool whose personas may take the task (seed 000 §5.4). */
  pool: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/).default('backend'),
  acceptanceCriteria: list(30).default([]),
  dependsOn: z.array(taskKeySchema).max(50).default([]),
});
export type RunTask = z.output<typeof runTaskSchema>;

export const qaFailureSchema = z.object({
  test: z.string().min(1).max(500),
  message: text(5_000).default(''),
  decision: z.enum(qaDecisions),
  taskKey: taskKeySchema.optional(),
  details: text(5_000).default(''),
});
export type QaFailure = z.output<typeof qaFailureSchema>;

export const runLimitsSchema = z.object({
  maxQaRounds: z.number().int().min(1).max(20).default(3),
  maxTaskAttempts: z.number().int().min(1).max(10).default(2),
  maxWorkshopRounds: z.number().int().min(1).max(20).default(3),
  maxConcurrentAgents: z.number().int().min(1).max(20).default(3),
});

/** The personas and pools the run assigns from, read from the team-manager when the run starts. */
export const runRosterSchema = z.object({
  pools: z.record(z.string(), z.array(z.string())),
  names: z.record(z.string(), z.string()),
});
export type RunRoster = z.output<typeof runRosterSchema>;

// ---- events -------------------------------------------------------------------------------------

const ev = <N extends string, S extends z.ZodType>(name: N, schema: S) => defineEvent({ service: 'orchestrator', category: 'run', name, schema });

export const runStarted = ev(
  'started',
  z.object({
    runId: id,
    team: teamNameSchema,
    goal: z.string().min(1).max(20_000),
    title: z.string().min(1).max(200),
    /** A git repository or plain directory the run's checkout is made from. */
    source: z.string().min(1).max(4_096),
    mode: z.enum(runModes),
    operator: z.enum(operatorModes),
    limits: runLimitsSchema,
    roster: runRosterSchema,
    /** v1: the operator's own tasks. */
    tasks: z.array(runTaskSchema).max(200).optional(),
    simulated: z.boolean(),
    startedAt: at,
  }),
);

export const runWorkspacePrepared = ev('workspace-prepared', z.object({ runId: id, dir: z.string().max(4_096), branch: z.string().max(300), baseCommit: z.string().max(64), at }));

export const runSessionStarted = ev(
  'session-started',
  z.object({
    runId: id,
    sessionId: id,
    purpose: z.enum(runSessionPurposes),
    persona: id,
    taskKey: taskKeySchema.optional(),
    attempt: z.number().int().positive(),
    round: z.number().int().positive().optional(),
    at,
  }),
);

/** A run session ended; its phase event (spec, tasks, task outcome, QA or review report) follows. */
export const runSessionEnded = ev(
  'session-ended',
  z.object({ runId: id, sessionId: id, exitReason: z.string().max(50), summary: text(20_000), outputError: text(2_000).optional(), at }),
);

export const runQuestionsAsked = ev('questions-asked', z.object({ runId: id, round: z.number().int().positive(), questions: list(20).min(1), at }));
export const runQuestionsAnswered = ev('questions-answered', z.object({ runId: id, round: z.number().int().positive(), answer: z.string().min(1).max(20_000), by: id, at }));
export const runSpecDrafted = ev('spec-drafted', z.object({ runId: id, spec: specSchema, at }));
export const runSpecAccepted = ev('spec-accepted', z.object({ runId: id, by: id, at }));
export const runTasksProposed = ev('tasks-proposed', z.object({ runId: id, tasks: z.array(runTaskSchema).min(1).max(200), by: id, at }));
export const runTasksApproved = ev(
  'tasks-approved',
  z.object({ runId: id, tasks: z.array(runTaskSchema).min(1).max(200), by: id, edited: z.boolean(), at }),
);
export const runTasksAdded = ev(
  'tasks-added',
  z.object({
    runId: id,
    tasks: z.array(runTaskSchema.extend({ origin: z.enum(['plan', 'qa-fix', 'merge-conflict']), author: id.optional() })).min(1).max(200),
    at,
  }),
);
export const runTaskFinished = ev(
  'task-finished',
  z.object({
    runId: id,
    taskKey: taskKeySchema,
    persona: id,
    sessionId: id,
    attempt: z.number().int().positive(),
    outcome: z.enum(['completed', 'failed']),
    summary: text(10_000),
    files: z.array(z.string().max(1_000)).max(1_000).default([]),
    at,
  }),
);
export const runTaskMerged = ev('task-merged', z.object({ runId: id, taskKey: taskKeySchema, commit: z.string().max(64).optional(), files: z.array(z.string().max(1_000)).max(1_000), at }));
export const runTaskConflicted = ev('task-conflicted', z.object({ runId: id, taskKey: taskKeySchema, files: z.array(z.string().max(1_000)).max(1_000), conflictTaskKey: taskKeySchema, at }));
export const runQaReported = ev(
  'qa-reported',
  z.object({ runId: id, round: z.number().int().positive(), passed: z.boolean(), failures: z.array(qaFailureSchema).max(100), summary: text(10_000), at }),
);
export const runReviewReported = ev(
  'review-reported',
  z.object({ runId: id, verdict: z.enum(['done', 'issues']), report: text(20_000), issues: list(50).default([]), at }),
);
export const runEscalated = ev(
  'escalated',
  z.object({ runId: id, escalationId: id, from: id, to: z.enum(['gavin', 'robbo', 'operator']), subject: z.string().min(1).max(500), details: text(10_000), at }),
);
export const runEscalationAnswered = ev('escalation-answered', z.object({ runId: id, escalationId: id, answer: z.enum(['continue', 'stop']), note: text(5_000).optional(), by: id, at }));
export const runCompleted = ev(
  'completed',
  z.object({ runId: id, verdict: z.enum(['done', 'issues']), resultDir: z.string().max(4_096), branch: z.string().max(300), headCommit: z.string().max(64), at }),
);
export const runFailed = ev('failed', z.object({ runId: id, reason: z.string().min(1).max(5_000), at }));

export const runEvents = [
  runStarted,
  runWorkspacePrepared,
  runSessionStarted,
  runSessionEnded,
  runQuestionsAsked,
  runQuestionsAnswered,
  runSpecDrafted,
  runSpecAccepted,
  runTasksProposed,
  runTasksApproved,
  runTasksAdded,
  runTaskFinished,
  runTaskMerged,
  runTaskConflicted,
  runQaReported,
  runReviewReported,
  runEscalated,
  runEscalationAnswered,
  runCompleted,
  runFailed,
];

// ---- requests -----------------------------------------------------------------------------------

export const startRun = defineCommand({
  service: 'orchestrator',
  name: 'start-run',
  request: z.object({
    runId: runIdSchema.optional(),
    team: teamNameSchema,
    goal: z.string().min(1).max(20_000),
    source: z.string().min(1).max(4_096),
    mode: z.enum(runModes).default('v3'),
    operator: z.enum(operatorModes).default('interactive'),
    limits: runLimitsSchema.partial().default({}),
    tasks: z.array(runTaskSchema).min(1).max(200).optional(),
  }),
  response: z.object({ runId: z.string(), streamVersion: z.string() }),
});

export const answerRun = defineCommand({
  service: 'orchestrator',
  name: 'answer-run',
  request: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('questions'), runId: id, answer: z.string().min(1).max(20_000), by: id.default('operator') }),
    z.object({ kind: z.literal('spec'), runId: id, accept: z.literal(true), by: id.default('operator') }),
    z.object({ kind: z.literal('tasks'), runId: id, tasks: z.array(runTaskSchema).min(1).max(200).optional(), by: id.default('operator') }),
    z.object({ kind: z.literal('escalation'), runId: id, escalationId: id, answer: z.enum(['continue', 'stop']), note: text(5_000).optional(), by: id.default('operator') }),
  ]),
  response: z.object({ runId: z.string(), streamVersion: z.string() }),
});

export const runViewSchema = z.object({
  runId: z.string(),
  team: z.string(),
  title: z.string(),
  mode: z.enum(runModes),
  operator: z.enum(operatorModes),
  phase: z.enum(runPhases),
  simulated: z.boolean(),
  waitingFor: z.string().nullable(),
  spec: specSchema.nullable(),
  questions: z.array(z.string()),
  tasks: z.array(
    z.object({ key: z.string(), subject: z.string(), pool: z.string(), status: z.enum(['pending', 'running', 'done', 'merged', 'failed']), persona: z.string().nullable(), attempts: z.number(), origin: z.string() }),
  ),
  personas: z.array(z.object({ persona: z.string(), name: z.string(), activity: z.string() })),
  qaRounds: z.number(),
  escalations: z.array(z.object({ escalationId: z.string(), to: z.string(), subject: z.string(), answered: z.boolean() })),
  resultDir: z.string().nullable(),
  branch: z.string().nullable(),
  verdict: z.string().nullable(),
  failure: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
});
export type RunView = z.output<typeof runViewSchema>;

export const getRun = defineQuery({ service: 'orchestrator', name: 'get-run', request: z.object({ runId: id }), response: runViewSchema });

export const listRuns = defineQuery({
  service: 'orchestrator',
  name: 'list-runs',
  request: z.object({ team: teamNameSchema.optional(), limit: z.number().int().min(1).max(200).default(50) }),
  response: z.object({ runs: z.array(runViewSchema.pick({ runId: true, team: true, title: true, phase: true, mode: true, startedAt: true, endedAt: true, verdict: true })) }),
});
