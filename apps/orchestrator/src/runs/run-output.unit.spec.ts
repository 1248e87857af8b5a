import { describe, expect, it } from 'vitest';
import { parsePhaseOutput } from './run-output';

const reflection = (output?: unknown, status = 'completed') => ({ task_result: { status, summary: 's', files_changed: [], ...(output === undefined ? {} : { output }) } });
const t = (key: string, dependsOn: string[] = []) => ({ key, subject: `Task ${key}`, dependsOn });

describe('phase output from a session’s reflection', () => {
  it('a workshop yields either Robbo’s questions or his spec', () => {
    expect(parsePhaseOutput('workshop', reflection({ questions: ['Ties?'] }))).toEqual({ kind: 'questions', questions: ['Ties?'] });
    expect(parsePhaseOutput('workshop', reflection({ spec: { goal: 'g', acceptanceCriteria: ['a'] } }))).toEqual({ kind: 'spec', spec: { goal: 'g', acceptanceCriteria: ['a'], constraints: [], outOfScope: [] } });
  });

  it('a spec without acceptance criteria is unusable, naming the field', () => {
    expect(parsePhaseOutput('workshop', reflection({ spec: { goal: 'g', acceptanceCriteria: [] } }))).toMatchObject({ kind: 'invalid', error: expect.stringContaining('spec.acceptanceCriteria') });
  });

  it('a decomposition yields tasks with defaults, and a circular plan is unusable', () => {
    expect(parsePhaseOutput('decompose', reflection({ tasks: [t('T1'), t('T2', ['T1'])] }))).toMatchObject({ kind: 'tasks', tasks: [{ key: 'T1', pool: 'backend', description: '' }, { key: 'T2', dependsOn: ['T1'] }] });
    expect(parsePhaseOutput('decompose', reflection({ tasks: [t('T1', ['T2']), t('T2', ['T1'])] }))).toMatchObject({ kind: 'invalid', error: expect.stringContaining('Circular dependency') });
  });

  it('QA, review and escalation outputs are read as their phase’s report', () => {
    expect(parsePhaseOutput('qa', reflection({ passed: true }))).toEqual({ kind: 'qa', passed: true, failures: [] });
    expect(parsePhaseOutput('review', reflection({ verdict: 'done' }))).toEqual({ kind: 'review', verdict: 'done', report: '', issues: [] });
    expect(parsePhaseOutput('escalation', reflection({ escalation: { decision: 'retry', note: 'Use a Map' } }))).toEqual({ kind: 'escalation', decision: 'retry', note: 'Use a Map' });
  });

  it('a builder’s result is its reflection status; without a reflection it is unknown', () => {
    expect(parsePhaseOutput('task', reflection(undefined, 'blocked'))).toEqual({ kind: 'task', status: 'blocked' });
    expect(parsePhaseOutput('task', undefined)).toEqual({ kind: 'task', status: 'unknown' });
  });

  it('a phase session that ends without task_result.output produced nothing usable', () => {
    expect(parsePhaseOutput('qa', reflection())).toMatchObject({ kind: 'invalid', error: expect.stringContaining('task_result.output') });
  });
});
