import { describe, expect, it } from 'vitest';
import { workflowDefinitionSchema } from './workflow.contracts';

const fields = (value: unknown) => {
  const result = workflowDefinitionSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => i.path.join('.'));
};

describe('workflow definition', () => {
  it('accepts a diamond DAG', () => {
    expect(fields({ name: 'd', steps: [{ id: 'a', prompt: 'p' }, { id: 'b', prompt: 'p', needs: ['a'] }, { id: 'c', prompt: 'p', needs: ['a'] }, { id: 'd', prompt: '{{ steps.b.output }}', needs: ['b', 'c'] }] })).toEqual([]);
  });

  it('names a dependency on an unknown step', () => {
    expect(fields({ name: 'd', steps: [{ id: 'a', prompt: 'p' }, { id: 'b', prompt: 'p' }, { id: 'c', prompt: 'p', needs: ['a', 'nope'] }] })).toEqual(['steps.2.needs.1']);
  });

  it('names a cycle', () => {
    expect(fields({ name: 'd', steps: [{ id: 'a', prompt: 'p', needs: ['b'] }, { id: 'b', prompt: 'p', needs: ['a'] }] })).toEqual(['steps.0.needs']);
  });

  it('names a duplicate step id, a template of a step not needed and a condition on a step not needed', () => {
    expect(fields({ name: 'd', steps: [{ id: 'a', prompt: 'p' }, { id: 'a', prompt: 'p' }] })).toEqual(['steps.1.id']);
    expect(fields({ name: 'd', steps: [{ id: 'a', prompt: 'p' }, { id: 'b', prompt: 'use {{ steps.a.output }}' }] })).toEqual(['steps.1.prompt']);
    expect(fields({ name: 'd', steps: [{ id: 'a', prompt: 'p' }, { id: 'b', prompt: 'p', when: { step: 'a', status: 'failed' } }] })).toEqual(['steps.1.when.step']);
  });

  it('makes each pipeline stage need the one before it', () => {
    expect(fields({ name: 'p', mode: 'pipeline', steps: [{ id: 'a', prompt: 'p' }, { id: 'b', prompt: '{{ steps.a.output }}' }] })).toEqual([]);
  });

  it('names unknown keys and bad values', () => {
    expect(fields({ name: 'd', steps: [{ id: 'a', prompt: 'p', retries: 9 }] })).toEqual(['steps.0.retries']);
    expect(fields({ name: 'd', steps: [{ id: 'a', prompt: 'p', when: { step: 'a', outputMatches: '(' } }] })).toContain('steps.0.when.outputMatches');
    expect(fields({ name: 'd', steps: [{ id: 'a', prompt: 'p', nedds: ['x'] }] })).toEqual(['steps.0']);
  });
});
