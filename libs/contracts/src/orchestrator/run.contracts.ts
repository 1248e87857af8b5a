import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import type { EventData } from '../messages';
import { teamNameSchema } from '../team-manager/team.contracts';
import { effortLevelSchema } from '../cost-governor/routing.contracts';
import { agentSnapshotSchema } from './agents.contracts';
import { sessionRoutingSchema } from './ask.contracts';
import { runSourceSchema } from './run-source';
import { agentRuntimeSchema } from './runtime.contracts';

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
/** Who works a phase; `task` is a builder's task (also a QA fix or a merge-conflict task); `escalation` is Gavin or Robbo answering one. */
export const runSessionPurposes = ['workshop', 'decompose', 'task', 'qa', 'review', 'escalation'] as const;
/** Escalation paths (seed 000 §4.7): team → Gavin → Robbo → operator; Verner → Robbo → operator. */
export const escalationLevels = ['gavin', 'robbo', 'operator'] as const;
/** continue: go on without it (skip the task / accept QA); retry: one more attempt or QA round; escalate: pass it up. */
export const escalationAnswers = ['continue', 'retry', 'stop', 'escalate'] as const;

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

/**
 * A fix run (Leon's remediation, seed 000 §4.6): Verner's regression task comes first and its test
 * must make `testCommand` fail on the merged branch; after the fix it must pass. The orchestrator
 * runs the command itself (in the sandbox) and records both checks as `run.regression-checked`.
 */
export const runFixSchema = z.object({
  /** The ops-leon exception group the run fixes. */
  groupId: z.string().min(1).max(100),
  testCommand: z.string().min(1).max(1_000),
  regressionTaskKey: taskKeySchema,
});
export type RunFix = z.output<typeof runFixSchema>;

/** The personas and pools the run assigns from, read from the team-manager when the run starts. */
export const runRosterSchema = z.object({
  pools: z.record(z.string(), z.array(z.string())),
  names: z.record(z.string(), z.string()),
});
export type RunRoster = z.output<typeof runRosterSchema>;

/** Where a project keeps its team manifest (seed 001), relative to the run's source. */
export const PROJECT_MANIFEST_PATH = '.claude/team.yaml';

export const runManifestSchema = z.object({
  path: z.string().min(1).max(300),
  members: z.array(z.string().max(64)).max(50),
  changed: z.boolean(),
});
export type RunManifest = z.output<typeof runManifestSchema>;

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
    fix: runFixSchema.optional(),
    /** Every session of the run on this runtime; none: each member's or persona's own. */
    runtime: agentRuntimeSchema.optional(),
    /** The operator's pins for every session of the run (instead of routing each one). */
    model: z.string().min(1).max(100).optional(),
    effort: effortLevelSchema.optional(),
    /** `--agent <name>`: the custom agent definition the run's build sessions run with, as it was when the run started. */
    agent: agentSnapshotSchema.optional(),
    /**
     * The project's `.claude/team.yaml` the run imported as its team's manifest when it started
     * (seed 001; through the team-manager's import-manifest, validated as an upload is): its path in
     * the source, the members it names, and whether it changed the team's manifest.
     */
    manifest: runManifestSchema.optional(),
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
    /** The task's subject, so the event reads on its own ("Con started T1 'Add topWords'"). */
    subject: z.string().max(200).optional(),
    escalationId: id.optional(),
    /** The persona pool lease (team-manager) the session runs under, released when it ends. */
    pool: z.string().max(32).optional(),
    leaseId: z.string().max(100).optional(),
    affinity: z.boolean().optional(),
    /** The persona's git worktree the session works in. */
    worktree: z.string().max(4_096).optional(),
    /**
     * The model and effort the session runs on and why: the cost governor's routing of the
     * session's signals, the operator's or the agent's pin, or the built-in default when the
     * governor could not answer. Recorded before the session starts, so a resumed run launches it on
     * the same model. None on runs recorded before routing (they ran on the per-purpose default).
     */
    routing: sessionRoutingSchema.optional(),
    /** The custom agent (run.started's `agent`) this session runs as. */
    agent: id.optional(),
    at,
  }),
);

/** No persona of the pool is free (or the team is at its agent limit): the session waits in the team-manager's queue. */
export const runPersonaQueued = ev(
  'persona-queued',
  z.object({
    runId: id,
    sessionId: id,
    purpose: z.enum(runSessionPurposes),
    taskKey: taskKeySchema.optional(),
    pool: z.string().max(32),
    requestId: z.string().max(100),
    position: z.number().int().positive(),
    at,
  }),
);

/** A session's persona went back to its pool. */
export const runPersonaReleased = ev('persona-released', z.object({ runId: id, sessionId: id, persona: id, leaseId: z.string().max(100), at }));

/** A run session ended; its phase event (spec, tasks, task outcome, QA or review report) follows. */
export const runSessionEnded = ev(
  'session-ended',
  z.object({ runId: id, sessionId: id, exitReason: z.string().max(50), summary: text(20_000), outputError: text(2_000).optional(), at }),
);

export const runQuestionsAsked = ev('questions-asked', z.object({ runId: id, round: z.number().int().positive(), questions: list(20).min(1), at }));
export const runQuestionsAnswered = ev('questions-answered', z.object({ runId: id, round: z.number().int().positive(), answer: z.string().min(1).max(20_000), by: id, at }));
export const runSpecDrafted = ev('spec-drafted', z.object({ runId: id, spec: specSchema, at }));
export const runSpecAccepted = ev('spec-accepted', z.object({ runId: id, by: id, at }));
/** v2: Gavin's draft waits for the operator; `approvalId` is its plan-approval in the team-manager's approvals queue. */
export const runTasksProposed = ev('tasks-proposed', z.object({ runId: id, tasks: z.array(runTaskSchema).min(1).max(200), by: id, approvalId: z.string().max(100).optional(), at }));
/** v2: the operator turned Gavin's draft down; Gavin drafts again with the reason. */
export const runTasksRejected = ev('tasks-rejected', z.object({ runId: id, by: id, reason: z.string().min(1).max(2_000), at }));
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
/** The run's tasks on the team-manager's task list (with their dependencies): run task key → team task id. */
export const runTasksCreated = ev(
  'tasks-created',
  z.object({ runId: id, team: teamNameSchema, tasks: z.array(z.object({ key: taskKeySchema, taskId: z.string().max(64) })).min(1).max(200), at }),
);
export const runTaskFinished = ev(
  'task-finished',
  z.object({
    runId: id,
    taskKey: taskKeySchema,
    subject: z.string().max(200).optional(),
    persona: id,
    sessionId: id,
    attempt: z.number().int().positive(),
    /** `handed-off`: the session filled its context and wrote a handoff (in `summary`); the same persona continues in a fresh session, not a new attempt. */
    outcome: z.enum(['completed', 'failed', 'handed-off']),
    summary: text(10_000),
    files: z.array(z.string().max(1_000)).max(1_000).default([]),
    at,
  }),
);
const mergeRef = { runId: id, taskKey: taskKeySchema, subject: z.string().max(200).optional(), persona: id.optional() };
/** A finished task (or Verner's tests of a QA round, key `qa-r<n>`) merged into the run branch. */
export const runTaskMerged = ev('task-merged', z.object({ ...mergeRef, commit: z.string().max(64).optional(), files: z.array(z.string().max(1_000)).max(1_000), at }));
export const runTaskConflicted = ev('task-conflicted', z.object({ ...mergeRef, files: z.array(z.string().max(1_000)).max(1_000), conflictTaskKey: taskKeySchema, at }));
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
  z.object({
    runId: id,
    escalationId: id,
    from: id,
    to: z.enum(escalationLevels),
    subject: z.string().min(1).max(500),
    details: text(10_000),
    /** The task (or QA round, `qa-r<n>`) it is about. */
    about: z.string().max(40).optional(),
    at,
  }),
);
export const runEscalationAnswered = ev('escalation-answered', z.object({ runId: id, escalationId: id, answer: z.enum(escalationAnswers), note: text(5_000).optional(), by: id, at }));
export const runSummarySchema = z.object({
  tasks: z.number().int().nonnegative(),
  attempts: z.number().int().nonnegative(),
  qaRounds: z.number().int().nonnegative(),
  wallTimeMs: z.number().int().nonnegative(),
});
export const runCompleted = ev(
  'completed',
  z.object({
    runId: id,
    verdict: z.enum(['done', 'issues']),
    resultDir: z.string().max(4_096),
    branch: z.string().max(300),
    headCommit: z.string().max(64),
    summary: runSummarySchema.optional(),
    at,
  }),
);
/** A fix run's test command on the run branch: `before-fix` must fail (the test reproduces the bug), `after-fix` must pass. */
export const runRegressionChecked = ev(
  'regression-checked',
  z.object({
    runId: id,
    stage: z.enum(['before-fix', 'after-fix']),
    commit: z.string().max(64),
    command: z.string().max(1_000),
    exitCode: z.number().int(),
    /** True when the stage got what it needs (before-fix: the command failed; after-fix: it passed). */
    ok: z.boolean(),
    /** The regression test files the regression task added. */
    testFiles: z.array(z.string().max(1_000)).max(100).default([]),
    /** The command's output, tail-truncated and redacted. */
    output: text(8_000),
    at,
  }),
);
export const runFailed = ev('failed', z.object({ runId: id, reason: z.string().min(1).max(5_000), at }));

export const runEvents = [
  runStarted,
  runWorkspacePrepared,
  runSessionStarted,
  runPersonaQueued,
  runPersonaReleased,
  runSessionEnded,
  runQuestionsAsked,
  runQuestionsAnswered,
  runSpecDrafted,
  runSpecAccepted,
  runTasksProposed,
  runTasksApproved,
  runTasksRejected,
  runTasksAdded,
  runTasksCreated,
  runTaskFinished,
  runTaskMerged,
  runTaskConflicted,
  runQaReported,
  runReviewReported,
  runEscalated,
  runEscalationAnswered,
  runRegressionChecked,
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
    /** A git URL or a directory under the orchestrator's HS_SOURCE_ROOTS (run-source.ts). */
    source: runSourceSchema,
    mode: z.enum(runModes).default('v3'),
    operator: z.enum(operatorModes).default('interactive'),
    limits: runLimitsSchema.partial().default({}),
    tasks: z.array(runTaskSchema).min(1).max(200).optional(),
    /** Makes it a fix run (needs `tasks`, one of them `fix.regressionTaskKey`). */
    fix: runFixSchema.optional(),
    /** Runs every session on `built-in` or `claude-code`; none: each member's or persona's runtime. */
    runtime: agentRuntimeSchema.optional(),
    /** Pins every session's model (id or alias) instead of routing each one. */
    model: z.string().min(1).max(100).optional(),
    /** Pins every session's thinking effort instead of routing each one. */
    effort: effortLevelSchema.optional(),
    /** A custom agent of the source's project or the user: the run's build sessions run with its prompt, tools, model and turn limit. */
    agent: z.string().regex(/^[a-z][a-z0-9-]{0,63}$/, 'must be a lower-case agent name').optional(),
  }),
  response: z.object({ runId: z.string(), streamVersion: z.string() }),
});

export const answerRun = defineCommand({
  service: 'orchestrator',
  name: 'answer-run',
  request: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('questions'), runId: id, answer: z.string().min(1).max(20_000), by: id.default('operator') }),
    z.object({ kind: z.literal('spec'), runId: id, accept: z.literal(true), by: id.default('operator') }),
    /** Approve Gavin's tasks as proposed, approve an edited list (`tasks`), or turn them down (`rejectReason`). */
    z.object({
      kind: z.literal('tasks'),
      runId: id,
      tasks: z.array(runTaskSchema).min(1).max(200).optional(),
      rejectReason: z.string().min(1).max(2_000).optional(),
      by: id.default('operator'),
    }),
    z.object({ kind: z.literal('escalation'), runId: id, escalationId: id, answer: z.enum(['continue', 'retry', 'stop']), note: text(5_000).optional(), by: id.default('operator') }),
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
  /** Every session of the run, oldest first, with the model it runs on and why. */
  sessions: z.array(
    z.object({
      sessionId: z.string(),
      purpose: z.enum(runSessionPurposes),
      persona: z.string(),
      taskKey: z.string().nullable(),
      attempt: z.number(),
      agent: z.string().nullable(),
      /** The routing record; null for sessions recorded before routing. */
      routing: sessionRoutingSchema.nullable(),
      ended: z.boolean(),
    }),
  ),
  /** The custom agent of the run's build sessions (`--agent`). */
  agent: z.string().nullable(),
  progress: z.object({ tasksDone: z.number(), tasksTotal: z.number() }),
  /** Spend of the run so far; null until the cost governor reports it. */
  costUsd: z.string().nullable(),
  qaRounds: z.number(),
  escalations: z.array(z.object({ escalationId: z.string(), from: z.string(), to: z.string(), subject: z.string(), answered: z.boolean() })),
  /** A fix run's checks of its test command, oldest first (absent on other runs). */
  regressionChecks: z
    .array(z.object({ stage: z.enum(['before-fix', 'after-fix']), ok: z.boolean(), exitCode: z.number().int(), commit: z.string(), at: z.string() }))
    .optional(),
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
  request: z.object({ team: teamNameSchema.optional(), limit: z.number().int().min(1).max(200).default(50), cursor: z.string().min(1).max(300).optional() }),
  response: z.object({
    runs: z.array(runViewSchema.pick({ runId: true, team: true, title: true, phase: true, mode: true, startedAt: true, endedAt: true, verdict: true })),
    /** Newest first; pass it back as `cursor` for the next page, null on the last one. */
    nextCursor: z.string().nullable(),
  }),
});

// ---- one-line summaries -------------------------------------------------------------------------

type RunEventDefinition = (typeof runEvents)[number];
/** Any event of a run stream, as `{ type, data }`. */
export type RunStreamEvent = { [D in RunEventDefinition as D['type']]: { type: D['type']; data: EventData<D> } }[RunEventDefinition['type']];

const who = (persona: string) =>
  persona === 'operator' ? 'The operator' : persona === 'auto-operator' ? 'The auto-operator' : persona.charAt(0).toUpperCase() + persona.slice(1);
const oneLine = (text: string, max = 120) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
};
const quoted = (subject?: string) => (subject ? ` '${oneLine(subject, 80)}'` : '');
const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const duration = (ms: number) => {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
};
const qaRoundOf = (key: string) => /^qa-r(\d+)$/.exec(key)?.[1];

/** ` — claude-haiku-4-5, quick effort (routed)`: the model a session runs on and how it was chosen. */
function routingNote(d: EventData<typeof runSessionStarted>): string {
  const r = d.routing;
  if (!r) return '';
  const how = r.fallback ? 'default: the cost governor did not answer' : r.pinnedBy === 'agent' ? `pinned by agent ${d.agent ?? ''}`.trim() : r.pinned ? 'pinned by the operator' : 'routed';
  return ` — ${r.model}, ${r.effort} effort (${how})`;
}

function sessionStartedLine(d: EventData<typeof runSessionStarted>): string {
  return `${sessionStartedWhat(d)}${routingNote(d)}`;
}

function sessionStartedWhat(d: EventData<typeof runSessionStarted>): string {
  const name = who(d.persona);
  switch (d.purpose) {
    case 'workshop':
      return `${name} started workshop round ${d.round ?? 1} on the goal`;
    case 'decompose':
      return `${name} started splitting the spec into tasks`;
    case 'task':
      return `${name} started ${d.taskKey}${quoted(d.subject)}${d.attempt > 1 ? ` (attempt ${d.attempt})` : ''}`;
    case 'qa':
      return `${name} started QA round ${d.round ?? 1}`;
    case 'review':
      return `${name} started the final review`;
    case 'escalation':
      return `${name} took up escalation ${d.escalationId ?? ''}`.trim();
  }
}

/** A human-legible line for any run event ("Con finished T1 'Add topWords'"), for logs, the CLI and the dashboard. */
export function summariseRunEvent(event: RunStreamEvent): string {
  switch (event.type) {
    case 'run.started': {
      const d = event.data;
      return `Run '${oneLine(d.title, 80)}' started (${d.mode}, ${d.operator} operator${d.tasks ? `, ${count(d.tasks.length, 'operator task')}` : ''}${d.fix ? `, fix of exception group ${d.fix.groupId}` : ''}${d.manifest ? `, team from ${d.manifest.path}: ${d.manifest.members.join(', ')}` : ''})`;
    }
    case 'run.workspace-prepared':
      return `Workspace ready at ${event.data.dir} on branch ${event.data.branch}`;
    case 'run.session-started':
      return sessionStartedLine(event.data);
    case 'run.persona-queued': {
      const d = event.data;
      return `${d.taskKey ?? d.purpose} waits for a free ${d.pool} persona (number ${d.position} in the queue)`;
    }
    case 'run.persona-released':
      return `${who(event.data.persona)} is free again`;
    case 'run.session-ended': {
      const d = event.data;
      return `Session ${d.sessionId} ended (${d.exitReason})${d.outputError ? `: unusable output: ${oneLine(d.outputError, 80)}` : ''}`;
    }
    case 'run.questions-asked':
      return `Robbo asked ${count(event.data.questions.length, 'question')}: ${oneLine(event.data.questions[0], 80)}`;
    case 'run.questions-answered':
      return `${who(event.data.by)} answered Robbo's questions (round ${event.data.round})`;
    case 'run.spec-drafted':
      return `Robbo drafted the spec: ${count(event.data.spec.acceptanceCriteria.length, 'acceptance criterion').replace(/criterions$/, 'criteria')}`;
    case 'run.spec-accepted':
      return `${who(event.data.by)} accepted the spec`;
    case 'run.tasks-proposed':
      return `${who(event.data.by)} proposed ${count(event.data.tasks.length, 'task')}${event.data.approvalId ? ` for approval (${event.data.approvalId})` : ''}`;
    case 'run.tasks-approved':
      return `${who(event.data.by)} approved ${count(event.data.tasks.length, 'task')}${event.data.edited ? ' (edited)' : ''}`;
    case 'run.tasks-rejected':
      return `${who(event.data.by)} turned the tasks down: ${oneLine(event.data.reason, 80)}`;
    case 'run.tasks-added': {
      const tasks = event.data.tasks;
      const [first] = tasks;
      if (first.origin === 'qa-fix') return `Fix task ${first.key}${quoted(first.subject)} added${first.author ? ` for ${who(first.author)}` : ''}${tasks.length > 1 ? ` (+${tasks.length - 1} more)` : ''}`;
      if (first.origin === 'merge-conflict') return `Conflict task ${first.key}${quoted(first.subject)} added${first.author ? ` for ${who(first.author)}` : ''}`;
      return `${count(tasks.length, 'task')} planned: ${tasks.slice(0, 3).map((t) => `${t.key}${quoted(t.subject)}`).join(', ')}${tasks.length > 3 ? ', …' : ''}`;
    }
    case 'run.tasks-created':
      return `${count(event.data.tasks.length, 'task')} put on team ${event.data.team}'s task list`;
    case 'run.task-finished': {
      const d = event.data;
      if (d.outcome === 'handed-off') return `${who(d.persona)} handed ${d.taskKey}${quoted(d.subject)} over to a fresh session of ${who(d.persona)} (context full)`;
      return d.outcome === 'completed' ? `${who(d.persona)} finished ${d.taskKey}${quoted(d.subject)}` : `${who(d.persona)} did not finish ${d.taskKey}${quoted(d.subject)} (attempt ${d.attempt})`;
    }
    case 'run.task-merged': {
      const round = qaRoundOf(event.data.taskKey);
      return round ? `Verner's QA tests of round ${round} merged` : `${event.data.taskKey}${quoted(event.data.subject)} merged into the run branch`;
    }
    case 'run.task-conflicted':
      return `Merging ${event.data.taskKey}${quoted(event.data.subject)} conflicted in ${event.data.files.slice(0, 3).join(', ')}: conflict task ${event.data.conflictTaskKey}`;
    case 'run.qa-reported': {
      const d = event.data;
      if (d.passed) return `Verner: QA round ${d.round} passed`;
      const sentBack = d.failures.filter((f) => f.decision === 'send-back').length;
      return `Verner: QA round ${d.round} found ${count(d.failures.length, 'failure')}${sentBack ? `, ${sentBack} sent back to the team` : ''}`;
    }
    case 'run.review-reported':
      return event.data.verdict === 'done' ? `Robbo's review: done` : `Robbo's review: ${count(event.data.issues.length, 'issue')} to address`;
    case 'run.escalated':
      return `${who(event.data.from)} escalated to ${who(event.data.to)}: ${oneLine(event.data.subject, 100)}`;
    case 'run.escalation-answered':
      return `${who(event.data.by)} answered escalation ${event.data.escalationId}: ${event.data.answer}${event.data.note ? ` (${oneLine(event.data.note, 80)})` : ''}`;
    case 'run.completed': {
      const d = event.data;
      const s = d.summary;
      const stats = s ? `: ${count(s.tasks, 'task')}, ${count(s.attempts, 'attempt')}, ${count(s.qaRounds, 'QA round')} in ${duration(s.wallTimeMs)}` : '';
      return `Run completed (${d.verdict})${stats}; result on ${d.branch} in ${d.resultDir}`;
    }
    case 'run.regression-checked':
      return regressionCheckLine(event.data);
    case 'run.failed':
      return `Run failed: ${oneLine(event.data.reason)}`;
  }
}

/** A fix run's check as the CLI and the dashboard show it: ✓ when the stage got what it needs. */
function regressionCheckLine(d: EventData<typeof runRegressionChecked>): string {
  const at = d.commit ? ` at ${d.commit.slice(0, 7)}` : '';
  if (d.stage === 'before-fix') {
    return d.ok ? `Regression test fails before the fix ✓ (exit ${d.exitCode}${at})` : `Regression test does not fail before the fix ✗ (exit ${d.exitCode}${at}): sent back`;
  }
  return d.ok ? `Regression test passes after the fix ✓ (exit 0${at})` : `Regression test still fails after the fix ✗ (exit ${d.exitCode}${at}): sent back`;
}
