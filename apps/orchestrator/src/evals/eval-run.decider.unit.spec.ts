import { ErrorCodes, HeadspaceError, type EvalGrade, type EvalSuite } from '@headspace/contracts';
import { DeciderSpec } from '@headspace/event-store';
import { describe, it } from 'vitest';
import { evalRunDecider, type EvalRunCommand, type EvalRunEvent } from './eval-run.decider';

const now = '2026-11-27T10:00:00.000Z';
const later = '2026-11-27T10:05:00.000Z';
const evalRunId = 'eval-smoke-1a2b3c4d';
const suite: EvalSuite = {
  name: 'smoke',
  tasks: [
    { id: 'readme', prompt: 'write a README', weight: 1, graders: [{ type: 'file', path: 'README.md', weight: 1 }] },
    { id: 'tests', prompt: 'make the tests pass', weight: 3, graders: [{ type: 'command', command: 'npm test', weight: 1 }] },
  ],
};
const startedData = { evalRunId, team: 'red', workspace: '/src/app', suitePath: 'evals/smoke.yaml', suite, config: { model: 'sonnet' }, simulated: true };
const started: EvalRunEvent = { type: 'eval.run-started', data: { ...startedData, startedAt: now } };
const taskStarted = (taskId: string, n: number): EvalRunEvent => ({ type: 'eval.task-started', data: { evalRunId, taskId, askId: `${evalRunId}-t${n}`, model: 'claude-sonnet-4-5', at: now } });
const grade = (passed: boolean): EvalGrade => ({ type: 'file', weight: 1, score: passed ? 1 : 0, passed, detail: passed ? 'ok' : 'missing' });
const gradedData = (taskId: string, n: number, passed: boolean) => ({ evalRunId, taskId, askId: `${evalRunId}-t${n}`, grades: [grade(passed)], score: passed ? 1 : 0, passed, costUsd: '0.01' });
const graded = (taskId: string, n: number, passed: boolean): EvalRunEvent => ({ type: 'eval.task-graded', data: { ...gradedData(taskId, n, passed), at: later } });

const spec = DeciderSpec.for(evalRunDecider);
const notFound = (e: unknown) => e instanceof HeadspaceError && e.code === ErrorCodes.evalRunNotFound && e.field === 'evalRunId';

describe('eval run decider', () => {
  describe('start-eval-run', () => {
    const command: EvalRunCommand = { type: 'start-eval-run', ...startedData, now };
    it('records the suite as read and the configuration', () => spec.given([]).when(command).then([started]));
    it('records nothing for a retried start', () => spec.given([started]).when(command).then([]));
  });

  describe('start-task', () => {
    const command: EvalRunCommand = { type: 'start-task', evalRunId, taskId: 'readme', askId: `${evalRunId}-t1`, model: 'claude-sonnet-4-5', now };
    it('records the task’s ask', () => spec.given([started]).when(command).then([taskStarted('readme', 1)]));
    it('records a task’s ask once', () => spec.given([started, taskStarted('readme', 1)]).when(command).then([]));
    it('ignores a task the suite does not hold', () => spec.given([started]).when({ ...command, taskId: 'nope' }).then([]));
    it('refuses a run that does not exist, naming evalRunId', () => spec.given([]).when(command).thenThrows(notFound));
  });

  describe('grade-task', () => {
    const command: EvalRunCommand = { type: 'grade-task', ...gradedData('readme', 1, true), now: later };
    it('records the grades of a started task', () => spec.given([started, taskStarted('readme', 1)]).when(command).then([graded('readme', 1, true)]));
    it('grades a task once', () => spec.given([started, taskStarted('readme', 1), graded('readme', 1, true)]).when(command).then([]));
    it('does not grade a task whose ask never started', () => spec.given([started]).when(command).then([]));
  });

  describe('complete-eval-run', () => {
    const command: EvalRunCommand = { type: 'complete-eval-run', evalRunId, now: later };
    const all = [started, taskStarted('readme', 1), graded('readme', 1, true), taskStarted('tests', 2), graded('tests', 2, false)];
    it('scores the run from the grades, weighted by task', () =>
      spec.given(all).when(command).then([{ type: 'eval.run-completed', data: { evalRunId, score: 0.25, passed: 1, total: 2, at: later } }]));
    it('does not complete while a task is ungraded', () => spec.given(all.slice(0, 4)).when(command).then([]));
    it('completes once', () => spec.given([...all, { type: 'eval.run-completed', data: { evalRunId, score: 0.25, passed: 1, total: 2, at: later } }]).when(command).then([]));
  });

  describe('fail-eval-run', () => {
    const command: EvalRunCommand = { type: 'fail-eval-run', evalRunId, reason: 'unknown model', now: later };
    it('fails a running run', () => spec.given([started]).when(command).then([{ type: 'eval.run-failed', data: { evalRunId, reason: 'unknown model', at: later } }]));
    it('leaves a failed run as it failed', () => spec.given([started, { type: 'eval.run-failed', data: { evalRunId, reason: 'x', at: later } }]).when(command).then([]));
  });
});
