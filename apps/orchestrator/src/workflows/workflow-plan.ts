import { WORKFLOW_ATTEMPT_REF, WORKFLOW_STEP_REF, type WorkflowStep } from '@headspace/contracts';
import { stepFinal, type WorkflowState } from './workflow.decider';

/** What may be inserted of one step's output into another's prompt (the ask takes 20,000 characters). */
const OUTPUT_IN_PROMPT = 4_000;
const PROMPT_MAX = 20_000;

export interface WorkflowPlan {
  /** Attempts to start now, in definition order, within the concurrency left. */
  starts: Array<{ stepId: string; attempt: number; prompt: string }>;
  /** Steps that will never run: their condition is false, or a step they need failed or was skipped. */
  ends: Array<{ stepId: string; status: 'failed' | 'skipped'; reason: string }>;
  /** Set once every step is done. */
  end?: { status: 'succeeded' | 'failed'; reason?: string };
}

/** A step's prompt with `{{ steps.<id>.output|status }}` and `{{ attempt }}` filled in from the stream. */
export function renderPrompt(step: WorkflowStep, state: WorkflowState, attempt: number): string {
  return step.prompt
    .replace(WORKFLOW_STEP_REF, (_m, ref: string, field: 'output' | 'status') => {
      const ended = state.steps[ref]?.ended;
      return field === 'status' ? (ended?.status ?? 'pending') : (ended?.output ?? '').slice(0, OUTPUT_IN_PROMPT);
    })
    .replace(WORKFLOW_ATTEMPT_REF, String(attempt))
    .slice(0, PROMPT_MAX);
}

/** Whether a step whose needs are all done runs, and if not why. */
function gate(step: WorkflowStep, state: WorkflowState): { run: true } | { run: false; status: 'failed' | 'skipped'; reason: string } {
  const endOf = (id: string) => state.steps[id]?.ended;
  if (step.when) {
    const { step: on, status, outputMatches } = step.when;
    const ended = endOf(on);
    if (ended?.status !== status) return { run: false, status: 'skipped', reason: `condition: "${on}" ${ended?.status ?? 'did not run'}, not ${status}` };
    if (outputMatches && !new RegExp(outputMatches, 'i').test(ended.output ?? '')) return { run: false, status: 'skipped', reason: `condition: the output of "${on}" does not match /${outputMatches}/` };
    return { run: true };
  }
  const failed = step.needs.find((n) => endOf(n)?.status === 'failed');
  if (failed) return { run: false, status: 'failed', reason: `needs "${failed}", which failed` };
  const skipped = step.needs.find((n) => endOf(n)?.status === 'skipped');
  if (skipped) return { run: false, status: 'skipped', reason: `needs "${skipped}", which was skipped` };
  return { run: true };
}

/**
 * What comes next in a running workflow, decided from its stream alone: a step runs once every step
 * it needs is done and its condition holds (by default: all of them succeeded); a failed attempt
 * with retries left runs again; at most `concurrency` attempts run at once.
 */
export function planWorkflow(state: WorkflowState): WorkflowPlan {
  const plan: WorkflowPlan = { starts: [], ends: [] };
  const s = state.started;
  if (!s || state.status !== 'running') return plan;
  let free = s.concurrency - Object.values(state.steps).filter((r) => r.current).length;
  for (const step of s.steps) {
    const run = state.steps[step.id] ?? { attempts: 0 };
    if (run.current || stepFinal(state, step.id) || !step.needs.every((n) => stepFinal(state, n))) continue;
    const retry = run.ended?.status === 'failed';
    const decision = retry ? ({ run: true } as const) : gate(step, state);
    if (!decision.run) {
      plan.ends.push({ stepId: step.id, status: decision.status, reason: decision.reason });
      continue;
    }
    if (free <= 0) continue;
    free--;
    const attempt = run.attempts + 1;
    plan.starts.push({ stepId: step.id, attempt, prompt: renderPrompt(step, state, attempt) });
  }
  if (plan.starts.length === 0 && plan.ends.length === 0 && s.steps.every((step) => stepFinal(state, step.id))) {
    const failed = s.steps.filter((step) => state.steps[step.id]?.ended?.status === 'failed').map((step) => step.id);
    plan.end = failed.length > 0 ? { status: 'failed', reason: `failed steps: ${failed.join(', ')}` } : { status: 'succeeded' };
  }
  return plan;
}
