import type { WorkflowStep } from '@headspace/contracts';
import { foldEvents } from '@headspace/event-store';
import { describe, expect, it } from 'vitest';
import { planWorkflow } from './workflow-plan';
import { workflowAskId, workflowDecider, type WorkflowEvent } from './workflow.decider';

const at = '2026-11-27T10:00:00.000Z';
const workflowId = 'wf-plan-1';
const step = (id: string, needs: string[] = [], extra: Partial<WorkflowStep> = {}): WorkflowStep => ({ id, kind: 'ask', prompt: `do ${id}`, needs, retries: 0, ...extra });
const given = (steps: WorkflowStep[], events: WorkflowEvent[] = [], concurrency = 4) =>
  foldEvents(workflowDecider, [{ type: 'workflow.started', data: { workflowId, team: 'red', name: 'plan', mode: 'dag', workspace: '/src/demo', concurrency, steps, simulated: true, startedAt: at } }, ...events]);
const startedEv = (stepId: string, attempt = 1): WorkflowEvent => ({ type: 'workflow.step-started', data: { workflowId, stepId, attempt, askId: workflowAskId(workflowId, stepId, attempt), prompt: 'p', at } });
const endedEv = (stepId: string, status: 'succeeded' | 'failed' | 'skipped', output?: string, attempt = 1): WorkflowEvent => ({
  type: 'workflow.step-ended',
  data: { workflowId, stepId, attempt, status, ...(output ? { output } : {}), at },
});
const ran = (stepId: string, status: 'succeeded' | 'failed', output?: string) => [startedEv(stepId), endedEv(stepId, status, output)];

const diamond = [step('a'), step('b', ['a']), step('c', ['a']), step('d', ['b', 'c'], { prompt: 'merge {{ steps.b.output }} and {{steps.c.output}}' })];

describe('workflow plan', () => {
  it('starts only the steps with no needs first', () => {
    expect(planWorkflow(given(diamond)).starts.map((s) => s.stepId)).toEqual(['a']);
  });

  it('starts independent steps together once what they need succeeded', () => {
    expect(planWorkflow(given(diamond, ran('a', 'succeeded'))).starts.map((s) => s.stepId)).toEqual(['b', 'c']);
  });

  it('starts no more attempts than the concurrency allows', () => {
    expect(planWorkflow(given([step('a'), step('b'), step('c')], [], 2)).starts.map((s) => s.stepId)).toEqual(['a', 'b']);
    expect(planWorkflow(given([step('a'), step('b'), step('c')], [startedEv('a')], 2)).starts.map((s) => s.stepId)).toEqual(['b']);
  });

  it('fills the outputs of the steps it needs into a prompt', () => {
    const plan = planWorkflow(given(diamond, [...ran('a', 'succeeded'), ...ran('b', 'succeeded', 'B says hi'), ...ran('c', 'succeeded', 'C says yo')]));
    expect(plan.starts).toEqual([{ stepId: 'd', attempt: 1, prompt: 'merge B says hi and C says yo' }]);
  });

  it('fills {{ attempt }} with the attempt number', () => {
    const steps = [step('a', [], { prompt: 'try {{ attempt }}', retries: 2 })];
    expect(planWorkflow(given(steps, ran('a', 'failed'))).starts).toEqual([{ stepId: 'a', attempt: 2, prompt: 'try 2' }]);
  });

  it('fails the dependants of a failed step instead of running them', () => {
    const plan = planWorkflow(given(diamond, [...ran('a', 'succeeded'), ...ran('b', 'failed'), ...ran('c', 'succeeded')]));
    expect(plan.starts).toEqual([]);
    expect(plan.ends).toEqual([{ stepId: 'd', status: 'failed', reason: 'needs "b", which failed' }]);
  });

  it('runs a step whose condition asks for an earlier failure, and skips it after a success', () => {
    const steps = [step('a'), step('fix', ['a'], { when: { step: 'a', status: 'failed' } })];
    expect(planWorkflow(given(steps, ran('a', 'failed'))).starts.map((s) => s.stepId)).toEqual(['fix']);
    expect(planWorkflow(given(steps, ran('a', 'succeeded'))).ends).toEqual([{ stepId: 'fix', status: 'skipped', reason: 'condition: "a" succeeded, not failed' }]);
  });

  it('runs a step whose condition matches the output, and skips it otherwise', () => {
    const steps = [step('a'), step('ship', ['a'], { when: { step: 'a', status: 'succeeded', outputMatches: 'ready' } })];
    expect(planWorkflow(given(steps, ran('a', 'succeeded', 'all READY'))).starts.map((s) => s.stepId)).toEqual(['ship']);
    expect(planWorkflow(given(steps, ran('a', 'succeeded', 'blocked'))).ends.map((e) => e.status)).toEqual(['skipped']);
  });

  it('retries a failed step with retries left before anything that needs it', () => {
    const steps = [step('a', [], { retries: 1 }), step('b', ['a'])];
    const plan = planWorkflow(given(steps, ran('a', 'failed')));
    expect(plan.starts.map((s) => [s.stepId, s.attempt])).toEqual([['a', 2]]);
    expect(plan.ends).toEqual([]);
  });

  it('ends the workflow once every step is done: succeeded, or failed naming the failed steps', () => {
    expect(planWorkflow(given([step('a')], ran('a', 'succeeded'))).end).toEqual({ status: 'succeeded' });
    expect(planWorkflow(given([step('a'), step('b')], [...ran('a', 'failed'), ...ran('b', 'succeeded')])).end).toEqual({ status: 'failed', reason: 'failed steps: a' });
    expect(planWorkflow(given([step('a')], [startedEv('a')])).end).toBeUndefined();
  });
});
