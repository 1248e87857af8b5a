import { ErrorCodes, HeadspaceError, type WorkflowStep } from '@headspace/contracts';
import { DeciderSpec } from '@headspace/event-store';
import { describe, expect, it } from 'vitest';
import { workflowAskId, workflowDecider, workflowIdOfAsk, type WorkflowCommand, type WorkflowEvent } from './workflow.decider';

const now = '2026-11-27T10:00:00.000Z';
const later = '2026-11-27T10:05:00.000Z';
const workflowId = 'wf-release-1a2b3c4d';
const step = (id: string, needs: string[] = [], retries = 0): WorkflowStep => ({ id, kind: 'ask', prompt: `do ${id}`, needs, retries });
const startedData = { workflowId, team: 'red', name: 'release', mode: 'dag' as const, workspace: '/src/demo', concurrency: 2, steps: [step('a', [], 1), step('b', ['a'])], simulated: true };
const started: WorkflowEvent = { type: 'workflow.started', data: { ...startedData, startedAt: now } };
const stepStartedData = (stepId: string, attempt = 1) => ({ workflowId, stepId, attempt, askId: workflowAskId(workflowId, stepId, attempt), prompt: `do ${stepId}` });
const stepStarted = (stepId: string, attempt = 1): WorkflowEvent => ({ type: 'workflow.step-started', data: { ...stepStartedData(stepId, attempt), at: now } });
const stepEndedData = (stepId: string, attempt: number, status: 'succeeded' | 'failed' | 'skipped') => ({ workflowId, stepId, attempt, status, ...(status === 'succeeded' ? { output: `${stepId} done` } : { reason: 'it broke' }) });
const stepEnded = (stepId: string, attempt: number, status: 'succeeded' | 'failed' | 'skipped'): WorkflowEvent => ({ type: 'workflow.step-ended', data: { ...stepEndedData(stepId, attempt, status), at: later } });
const ended = (status: 'succeeded' | 'failed' | 'cancelled'): WorkflowEvent => ({ type: 'workflow.ended', data: { workflowId, status, at: later } });

const spec = DeciderSpec.for(workflowDecider);
const notFound = (e: unknown) => e instanceof HeadspaceError && e.code === ErrorCodes.workflowNotFound && e.field === 'workflowId';

describe('workflow decider', () => {
  describe('start-workflow', () => {
    const command: WorkflowCommand = { type: 'start-workflow', ...startedData, now };
    it('records the definition', () => spec.given([]).when(command).then([started]));
    it('records nothing for a retried start', () => spec.given([started]).when(command).then([]));
  });

  describe('start-step', () => {
    it('records the first attempt of a step', () => spec.given([started]).when({ type: 'start-step', ...stepStartedData('a'), now }).then([stepStarted('a')]));
    it('never starts a running step again (a pass repeated after a crash)', () => spec.given([started, stepStarted('a')]).when({ type: 'start-step', ...stepStartedData('a'), now }).then([]));
    it('never starts a succeeded step again', () => spec.given([started, stepStarted('a'), stepEnded('a', 1, 'succeeded')]).when({ type: 'start-step', ...stepStartedData('a', 2), now }).then([]));
    it('starts the next attempt of a failed step with retries left', () =>
      spec.given([started, stepStarted('a'), stepEnded('a', 1, 'failed')]).when({ type: 'start-step', ...stepStartedData('a', 2), now }).then([stepStarted('a', 2)]));
    it('starts no attempt past the retries', () =>
      spec.given([started, stepStarted('a'), stepEnded('a', 1, 'failed'), stepStarted('a', 2), stepEnded('a', 2, 'failed')]).when({ type: 'start-step', ...stepStartedData('a', 3), now }).then([]));
    it('starts attempts only in sequence', () => spec.given([started]).when({ type: 'start-step', ...stepStartedData('a', 2), now }).then([]));
    it('starts nothing in a cancelled workflow', () => spec.given([started, ended('cancelled')]).when({ type: 'start-step', ...stepStartedData('a'), now }).then([]));
    it('refuses a workflow that does not exist, naming workflowId', () => spec.given([]).when({ type: 'start-step', ...stepStartedData('a'), now }).thenThrows(notFound));
  });

  describe('end-step', () => {
    it('records the end of the running attempt', () => spec.given([started, stepStarted('a')]).when({ type: 'end-step', ...stepEndedData('a', 1, 'succeeded'), now: later }).then([stepEnded('a', 1, 'succeeded')]));
    it('records it once', () =>
      spec.given([started, stepStarted('a'), stepEnded('a', 1, 'succeeded')]).when({ type: 'end-step', ...stepEndedData('a', 1, 'succeeded'), now: later }).then([]));
    it('ignores the end of an attempt that is not running', () => spec.given([started, stepStarted('a')]).when({ type: 'end-step', ...stepEndedData('a', 2, 'failed'), now: later }).then([]));
    it('records a step that never ran (attempt 0) as skipped', () => spec.given([started]).when({ type: 'end-step', ...stepEndedData('b', 0, 'skipped'), now: later }).then([stepEnded('b', 0, 'skipped')]));
  });

  describe('end-workflow', () => {
    const done = [started, stepStarted('a'), stepEnded('a', 1, 'succeeded'), stepStarted('b'), stepEnded('b', 1, 'succeeded')];
    it('ends once every step is done', () => spec.given(done).when({ type: 'end-workflow', workflowId, status: 'succeeded', now: later }).then([ended('succeeded')]));
    it('does not end while a step may still run (a failed step with retries left)', () =>
      spec.given([started, stepStarted('a'), stepEnded('a', 1, 'failed')]).when({ type: 'end-workflow', workflowId, status: 'failed', now: later }).then([]));
    it('cancels a running workflow at any time', () => spec.given([started, stepStarted('a')]).when({ type: 'end-workflow', workflowId, status: 'cancelled', now: later }).then([ended('cancelled')]));
    it('ends once', () => spec.given([...done, ended('succeeded')]).when({ type: 'end-workflow', workflowId, status: 'cancelled', now: later }).then([]));
  });

  it('names the workflow in the ask id of a step attempt', () => {
    expect(workflowAskId(workflowId, 'plan-2', 3)).toBe('wf-release-1a2b3c4d--plan-2--a3');
    expect(workflowIdOfAsk(workflowAskId(workflowId, 'plan-2', 3))).toBe(workflowId);
    expect(workflowIdOfAsk('fix-the-typo-1a2b3c4d')).toBeUndefined();
  });
});
