import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { effortLevelSchema } from '../cost-governor/routing.contracts';
import { teamNameSchema } from '../team-manager/team.contracts';
import { runSourceSchema } from './run-source';

/**
 * Evaluations (issue 25 scope 6, seed 003 Req 17 / Journey 12): a suite of tasks with graders, run
 * against one configuration (agent or persona, model, effort); each task is one ask in a fresh
 * checkout, graded by its graders; the run is scored and compared against a baseline run. Its stream
 * `evalrun-<evalRunId>` records the suite as read, each task's ask and grades, and the end.
 */
export const evalRunStreamId = (evalRunId: string) => `evalrun-${evalRunId}`;

/** Short enough that `<evalRunId>-t<n>` is still an ask id (63 characters). */
export const evalRunIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,54}$/, 'must be 1-55 lowercase letters, digits or dashes');
export const evalTaskIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be 1-63 lowercase letters, digits or dashes');
/** A suite file inside the workspace: `evals/<name>.yaml`. */
export const evalSuitePathSchema = z.string().regex(/^evals\/[A-Za-z0-9_-]{1,64}\.ya?ml$/, 'must be evals/<name>.yaml');
export const evalRunStatuses = ['running', 'completed', 'failed'] as const;
/** A score drop (0..1) past which `compare` lists a task as regressed even though it still passes. */
export const DEFAULT_REGRESSION_THRESHOLD = 0.1;

const at = z.iso.datetime();
const usd = z.string().max(40);
const weight = z.number().positive().max(100).default(1);
const score = z.number().min(0).max(1);

/** A test command the orchestrator runs in the task's checkout (the team's sandbox): exit 0 passes. */
const commandGraderSchema = z.object({ type: z.literal('command'), command: z.string().trim().min(1).max(2_000), weight }).strict();
/** A file of the checkout: it exists, and (when given) contains the text and matches the regex. */
const fileGraderSchema = z
  .object({
    type: z.literal('file'),
    path: z.string().min(1).max(1_000).refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'must be a relative path inside the checkout'),
    contains: z.string().min(1).max(2_000).optional(),
    matches: z
      .string()
      .min(1)
      .max(500)
      .refine((r) => {
        try {
          new RegExp(r);
          return true;
        } catch {
          return false;
        }
      }, 'must be a valid regular expression')
      .optional(),
    weight,
  })
  .strict();
/** A model judges the task's result against the rubric and answers a score 0..1; it passes at `passScore`. */
const rubricGraderSchema = z
  .object({ type: z.literal('rubric'), rubric: z.string().trim().min(1).max(4_000), passScore: score.default(0.5), weight })
  .strict();

export const evalGraderSchema = z.discriminatedUnion('type', [commandGraderSchema, fileGraderSchema, rubricGraderSchema]);
export type EvalGrader = z.output<typeof evalGraderSchema>;

/** A directory of the workspace, relative to it: the task runs in a fresh checkout of it instead of the whole workspace. */
const fixtureSchema = z
  .string()
  .min(1)
  .max(1_000)
  .refine((p) => !p.startsWith('/') && !p.split('/').includes('..'), 'must be a relative path inside the workspace');

export const evalTaskSchema = z
  .object({ id: evalTaskIdSchema, prompt: z.string().trim().min(1).max(20_000), fixture: fixtureSchema.optional(), weight, graders: z.array(evalGraderSchema).min(1).max(20) })
  .strict();
export type EvalTask = z.output<typeof evalTaskSchema>;

/** The YAML suite file. */
export const evalSuiteSchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    description: z.string().max(2_000).optional(),
    tasks: z.array(evalTaskSchema).min(1).max(100),
  })
  .strict()
  .superRefine((suite, ctx) => {
    const seen = new Set<string>();
    suite.tasks.forEach((t, i) => {
      if (seen.has(t.id)) ctx.addIssue({ code: 'custom', path: ['tasks', i, 'id'], message: `duplicate task id "${t.id}"` });
      seen.add(t.id);
    });
  });
export type EvalSuite = z.output<typeof evalSuiteSchema>;

/** What a run is measured against; unset fields are routed by the cost governor as for any ask. */
export const evalConfigSchema = z.object({
  agent: z.string().regex(/^[a-z][a-z0-9-]{0,63}$/, 'must be a lower-case agent name').optional(),
  model: z.string().min(1).max(100).optional(),
  effort: effortLevelSchema.optional(),
});
export type EvalConfig = z.output<typeof evalConfigSchema>;

export const evalGradeSchema = z.object({
  type: z.enum(['command', 'file', 'rubric']),
  weight: z.number(),
  score,
  passed: z.boolean(),
  /** Why: the command's exit code and output tail, the file check that failed, the judge's reason. */
  detail: z.string().max(9_000),
});
export type EvalGrade = z.output<typeof evalGradeSchema>;

const ev = <N extends string, S extends z.ZodType>(name: N, schema: S) => defineEvent({ service: 'orchestrator', category: 'eval', name, schema });

export const evalRunStarted = ev(
  'run-started',
  z.object({
    evalRunId: z.string(),
    team: teamNameSchema,
    workspace: z.string().min(1).max(4_096),
    suitePath: z.string().max(200),
    suite: evalSuiteSchema,
    config: evalConfigSchema,
    baseline: z.string().max(100).optional(),
    simulated: z.boolean(),
    startedAt: at,
  }),
);
/** The task's ask was started (its id is derived from the run and the task's position). */
export const evalTaskStarted = ev('task-started', z.object({ evalRunId: z.string(), taskId: z.string(), askId: z.string(), model: z.string().max(100), at }));
export const evalTaskGraded = ev(
  'task-graded',
  z.object({
    evalRunId: z.string(),
    taskId: z.string(),
    askId: z.string(),
    grades: z.array(evalGradeSchema).max(20),
    score,
    passed: z.boolean(),
    /** The ask's cost plus the rubric judges'. */
    costUsd: usd.optional(),
    at,
  }),
);
export const evalRunCompleted = ev('run-completed', z.object({ evalRunId: z.string(), score, passed: z.number().int(), total: z.number().int(), at }));
export const evalRunFailed = ev('run-failed', z.object({ evalRunId: z.string(), reason: z.string().min(1).max(5_000), at }));

export const evalEvents = [evalRunStarted, evalTaskStarted, evalTaskGraded, evalRunCompleted, evalRunFailed];

// ---- requests -----------------------------------------------------------------------------------

export const startEvalRun = defineCommand({
  service: 'orchestrator',
  name: 'start-eval-run',
  request: z.object({
    evalRunId: evalRunIdSchema.optional(),
    team: teamNameSchema,
    /** A directory under HS_SOURCE_ROOTS holding the suite file; every task runs in a fresh checkout of it. */
    workspace: runSourceSchema,
    suite: evalSuitePathSchema,
    agent: evalConfigSchema.shape.agent,
    model: evalConfigSchema.shape.model,
    effort: evalConfigSchema.shape.effort,
    /** A finished run of the same suite to compare against when this one completes. */
    baseline: evalRunIdSchema.optional(),
  }),
  response: z.object({ evalRunId: z.string(), streamVersion: z.string(), tasks: z.number().int() }),
});

export const evalTaskViewSchema = z.object({
  taskId: z.string(),
  weight: z.number(),
  status: z.enum(['pending', 'running', 'graded']),
  askId: z.string().nullable(),
  model: z.string().nullable(),
  score: score.nullable(),
  passed: z.boolean().nullable(),
  grades: z.array(evalGradeSchema),
  costUsd: z.string().nullable(),
});

export const evalRunViewSchema = z.object({
  evalRunId: z.string(),
  team: z.string(),
  status: z.enum(evalRunStatuses),
  suite: z.string(),
  suitePath: z.string(),
  workspace: z.string(),
  config: evalConfigSchema,
  baseline: z.string().nullable(),
  simulated: z.boolean(),
  tasks: z.array(evalTaskViewSchema),
  score: score.nullable(),
  passed: z.number().int(),
  total: z.number().int(),
  failure: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
});
export type EvalRunView = z.output<typeof evalRunViewSchema>;

export const getEvalRun = defineQuery({ service: 'orchestrator', name: 'get-eval-run', request: z.object({ evalRunId: z.string().min(1).max(100) }), response: evalRunViewSchema });

export const evalRunSummarySchema = evalRunViewSchema.pick({ evalRunId: true, team: true, status: true, suite: true, score: true, passed: true, total: true, startedAt: true, endedAt: true }).extend({ model: z.string().nullable() });

export const listEvalRuns = defineQuery({
  service: 'orchestrator',
  name: 'list-eval-runs',
  request: z.object({ team: teamNameSchema, limit: z.number().int().min(1).max(200).default(50) }),
  response: z.object({ runs: z.array(evalRunSummarySchema) }),
});

export const evalTaskDeltaSchema = z.object({
  taskId: z.string(),
  baseScore: score.nullable(),
  headScore: score.nullable(),
  delta: z.number().nullable(),
  basePassed: z.boolean().nullable(),
  headPassed: z.boolean().nullable(),
  regressed: z.boolean(),
  reason: z.string().nullable(),
});
export const evalComparisonSchema = z.object({
  base: z.string(),
  head: z.string(),
  threshold: z.number(),
  baseScore: score.nullable(),
  headScore: score.nullable(),
  tasks: z.array(evalTaskDeltaSchema),
  regressions: z.array(evalTaskDeltaSchema),
});
export type EvalComparison = z.output<typeof evalComparisonSchema>;

export const compareEvalRuns = defineQuery({
  service: 'orchestrator',
  name: 'compare-eval-runs',
  request: z.object({ base: evalRunIdSchema, head: evalRunIdSchema, threshold: z.coerce.number().min(0).max(1).default(DEFAULT_REGRESSION_THRESHOLD) }),
  response: evalComparisonSchema,
});
