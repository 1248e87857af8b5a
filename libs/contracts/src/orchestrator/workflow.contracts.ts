import { z } from 'zod';
import { defineCommand, defineEvent, defineQuery } from '../messages';
import { effortLevelSchema } from '../cost-governor/routing.contracts';
import { teamNameSchema } from '../team-manager/team.contracts';
import { runSourceSchema } from './run-source';

/**
 * A workflow: a DAG of steps (issue 24 scope 1, the DAG/parallel topology); a compound pipeline
 * (issue 25 scope 4) is a workflow whose steps run in the order listed. Its stream
 * `workflow-<workflowId>` records the definition, every attempt of every step with the ask that ran
 * it and its outcome, and the end; the orchestrator resumes a workflow from it after a crash (ADR 0050).
 */
export const workflowStreamId = (workflowId: string) => `workflow-${workflowId}`;

/** No double dash: a step's ask id is `<workflowId>--<stepId>--a<attempt>`. */
export const workflowIdSchema = z.string().regex(/^[a-z0-9](?:-?[a-z0-9]){0,39}$/, 'must be 1-40 lowercase letters, digits or single dashes');
export const workflowStepIdSchema = z.string().regex(/^[a-z](?:-?[a-z0-9]){0,19}$/, 'must be 1-20 lowercase letters, digits or single dashes, starting with a letter');
export const workflowStatuses = ['running', 'succeeded', 'failed', 'cancelled'] as const;
export const workflowStepStatuses = ['pending', 'running', 'succeeded', 'failed', 'skipped'] as const;
export const workflowStepEndStatuses = ['succeeded', 'failed', 'skipped'] as const;
/** Step kinds: `ask` runs one agent session through the ask machinery. */
export const workflowStepKinds = ['ask'] as const;
export const MAX_WORKFLOW_STEPS = 50;
export const MAX_WORKFLOW_CONCURRENCY = 16;

/** The templates a step's prompt may hold: `{{ steps.<id>.output }}`, `{{ steps.<id>.status }}`, `{{ attempt }}`. */
export const WORKFLOW_STEP_REF = /\{\{\s*steps\.([a-z0-9-]+)\.(output|status)\s*\}\}/g;
export const WORKFLOW_ATTEMPT_REF = /\{\{\s*attempt\s*\}\}/g;

const id = z.string().min(1).max(200);
const at = z.iso.datetime();

const regexSource = z
  .string()
  .min(1)
  .max(200)
  .refine((s) => {
    try {
      new RegExp(s);
      return true;
    } catch {
      return false;
    }
  }, 'not a valid regular expression');

/** Run the step only if an earlier step (one it needs) ended so, and (optionally) its output matches. */
export const workflowConditionSchema = z
  .object({
    step: workflowStepIdSchema,
    status: z.enum(['succeeded', 'failed']).default('succeeded'),
    /** A regular expression (case-insensitive) the step's output must match. */
    outputMatches: regexSource.optional(),
  })
  .strict();

export const workflowStepSchema = z
  .object({
    id: workflowStepIdSchema,
    kind: z.enum(workflowStepKinds).default('ask'),
    /** The request; `{{ steps.<id>.output }}` of a step it needs is replaced by that step's output. */
    prompt: z.string().trim().min(1).max(10_000),
    /** Steps that must end first. In a pipeline, a step without `needs` needs the step listed before it. */
    needs: z.array(workflowStepIdSchema).max(MAX_WORKFLOW_STEPS).optional(),
    /** Without it a step runs only when every step it needs succeeded. */
    when: workflowConditionSchema.optional(),
    /** Further attempts after a failed one. */
    retries: z.number().int().min(0).max(5).default(0),
    agent: z.string().regex(/^[a-z][a-z0-9-]{0,63}$/, 'must be a lower-case agent name').optional(),
    model: z.string().min(1).max(100).optional(),
    effort: effortLevelSchema.optional(),
  })
  .strict();
export type WorkflowStepInput = z.input<typeof workflowStepSchema>;

/** The steps a step waits for: its `needs`, or in a pipeline the step before it. */
export function effectiveNeeds(mode: 'dag' | 'pipeline', steps: ReadonlyArray<{ id: string; needs?: string[] }>, index: number): string[] {
  const step = steps[index];
  if (step.needs) return step.needs;
  return mode === 'pipeline' && index > 0 ? [steps[index - 1].id] : [];
}

/** A step on a dependency cycle, if any (depth-first over the needs). */
function stepOnCycle(needsOf: Map<string, string[]>): string | undefined {
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (node: string): string | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'visiting') return node;
    state.set(node, 'visiting');
    for (const next of needsOf.get(node) ?? []) {
      const found = visit(next);
      if (found) return found;
    }
    state.set(node, 'done');
    return undefined;
  };
  for (const node of needsOf.keys()) {
    const found = visit(node);
    if (found) return found;
  }
  return undefined;
}

export const workflowDefinitionSchema = z
  .object({
    name: z.string().trim().min(1).max(100),
    /** `dag` (default): steps run as soon as what they need has ended; `pipeline`: a step without `needs` needs the one before it. */
    mode: z.enum(['dag', 'pipeline']).default('dag'),
    /** How many steps of this workflow may run at once (default: the orchestrator's HS_WORKFLOW_CONCURRENCY). */
    concurrency: z.number().int().min(1).max(MAX_WORKFLOW_CONCURRENCY).optional(),
    steps: z.array(workflowStepSchema).min(1).max(MAX_WORKFLOW_STEPS),
  })
  .strict()
  .superRefine((def, ctx) => {
    const ids = new Set<string>();
    def.steps.forEach((step, i) => {
      if (ids.has(step.id)) ctx.addIssue({ code: 'custom', path: ['steps', i, 'id'], message: `duplicate step id "${step.id}"` });
      ids.add(step.id);
    });
    const needsOf = new Map<string, string[]>();
    def.steps.forEach((step, i) => {
      const needs = effectiveNeeds(def.mode, def.steps, i);
      needsOf.set(step.id, needs);
      needs.forEach((need, j) => {
        if (need === step.id) ctx.addIssue({ code: 'custom', path: ['steps', i, 'needs', j], message: `step "${step.id}" cannot need itself` });
        else if (!ids.has(need)) ctx.addIssue({ code: 'custom', path: ['steps', i, 'needs', j], message: `unknown step "${need}"` });
      });
      if (step.when && !needs.includes(step.when.step)) ctx.addIssue({ code: 'custom', path: ['steps', i, 'when', 'step'], message: `"${step.when.step}" is not a step this step needs` });
      for (const [, ref] of step.prompt.matchAll(WORKFLOW_STEP_REF)) {
        if (!needs.includes(ref)) ctx.addIssue({ code: 'custom', path: ['steps', i, 'prompt'], message: `{{ steps.${ref}.… }} names a step this step does not need` });
      }
    });
    const cyclic = stepOnCycle(needsOf);
    if (cyclic) ctx.addIssue({ code: 'custom', path: ['steps', def.steps.findIndex((s) => s.id === cyclic), 'needs'], message: `the needs of "${cyclic}" form a cycle` });
  });
export type WorkflowDefinitionInput = z.input<typeof workflowDefinitionSchema>;

/** A step as recorded: its needs made explicit. */
export const workflowRecordedStepSchema = z.object({
  id: workflowStepIdSchema,
  kind: z.enum(workflowStepKinds),
  prompt: z.string().min(1).max(10_000),
  needs: z.array(workflowStepIdSchema).max(MAX_WORKFLOW_STEPS),
  when: z.object({ step: workflowStepIdSchema, status: z.enum(['succeeded', 'failed']), outputMatches: z.string().max(200).optional() }).optional(),
  retries: z.number().int().min(0).max(5),
  agent: z.string().max(64).optional(),
  model: z.string().max(100).optional(),
  effort: effortLevelSchema.optional(),
});
export type WorkflowStep = z.output<typeof workflowRecordedStepSchema>;

const ev = <N extends string, S extends z.ZodType>(name: N, schema: S) => defineEvent({ service: 'orchestrator', category: 'workflow', name, schema });

export const workflowStarted = ev(
  'started',
  z.object({
    workflowId: id,
    team: teamNameSchema,
    name: z.string().min(1).max(100),
    mode: z.enum(['dag', 'pipeline']),
    workspace: z.string().min(1).max(4_096),
    concurrency: z.number().int().min(1).max(MAX_WORKFLOW_CONCURRENCY),
    steps: z.array(workflowRecordedStepSchema).min(1).max(MAX_WORKFLOW_STEPS),
    /** True when the model backend is the Headspace simulator. */
    simulated: z.boolean(),
    startedAt: at,
  }),
);

/** An attempt of a step, recorded before its ask is started (the ask id is deterministic, so a restart starts the same ask). */
export const workflowStepStarted = ev(
  'step-started',
  z.object({ workflowId: id, stepId: workflowStepIdSchema, attempt: z.number().int().min(1).max(6), askId: id, prompt: z.string().min(1).max(20_000), at }),
);

export const workflowStepEnded = ev(
  'step-ended',
  z.object({
    workflowId: id,
    stepId: workflowStepIdSchema,
    /** 0: the step never ran (skipped, or failed because a step it needs failed). */
    attempt: z.number().int().min(0).max(6),
    status: z.enum(workflowStepEndStatuses),
    output: z.string().max(20_000).optional(),
    reason: z.string().max(5_000).optional(),
    costUsd: z.string().max(40).optional(),
    at,
  }),
);

export const workflowEnded = ev(
  'ended',
  z.object({ workflowId: id, status: z.enum(['succeeded', 'failed', 'cancelled']), reason: z.string().max(5_000).optional(), at }),
);

export const workflowEvents = [workflowStarted, workflowStepStarted, workflowStepEnded, workflowEnded];

// ---- requests -----------------------------------------------------------------------------------

export const startWorkflow = defineCommand({
  service: 'orchestrator',
  name: 'start-workflow',
  request: z.object({
    workflowId: workflowIdSchema.optional(),
    team: teamNameSchema,
    /** A git URL or a directory under the orchestrator's HS_SOURCE_ROOTS: every ask step works in a checkout of it. */
    workspace: runSourceSchema,
    /** The definition inline; or `file`, a YAML/JSON file of a directory workspace (relative to it). */
    definition: workflowDefinitionSchema.optional(),
    file: z
      .string()
      .min(1)
      .max(500)
      .refine((f) => !f.startsWith('/') && !f.split(/[\\/]/).includes('..'), 'must be a path inside the workspace')
      .optional(),
  })
  .superRefine((req, ctx) => {
    if (!req.definition === !req.file) ctx.addIssue({ code: 'custom', path: ['definition'], message: 'give either `definition` or `file`' });
  }),
  response: z.object({ workflowId: z.string(), streamVersion: z.string() }),
});

export const cancelWorkflow = defineCommand({
  service: 'orchestrator',
  name: 'cancel-workflow',
  request: z.object({ workflowId: workflowIdSchema, reason: z.string().trim().min(1).max(500).optional() }),
  response: z.object({ workflowId: z.string(), status: z.enum(workflowStatuses) }),
});

export const workflowStepViewSchema = z.object({
  id: z.string(),
  kind: z.enum(workflowStepKinds),
  needs: z.array(z.string()),
  status: z.enum(workflowStepStatuses),
  attempts: z.number().int(),
  askId: z.string().nullable(),
  prompt: z.string().nullable(),
  output: z.string().nullable(),
  reason: z.string().nullable(),
  costUsd: z.string().nullable(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
});

export const workflowViewSchema = z.object({
  workflowId: z.string(),
  team: z.string(),
  name: z.string(),
  mode: z.enum(['dag', 'pipeline']),
  status: z.enum(workflowStatuses),
  concurrency: z.number().int(),
  simulated: z.boolean(),
  steps: z.array(workflowStepViewSchema),
  reason: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
});
export type WorkflowView = z.output<typeof workflowViewSchema>;

export const getWorkflow = defineQuery({ service: 'orchestrator', name: 'get-workflow', request: z.object({ workflowId: id }), response: workflowViewSchema });

export const workflowSummarySchema = workflowViewSchema.pick({ workflowId: true, team: true, name: true, mode: true, status: true, simulated: true, startedAt: true, endedAt: true }).extend({ steps: z.number().int() });

export const listWorkflows = defineQuery({
  service: 'orchestrator',
  name: 'list-workflows',
  request: z.object({ team: teamNameSchema, limit: z.number().int().min(1).max(200).default(50) }),
  response: z.object({ workflows: z.array(workflowSummarySchema) }),
});
