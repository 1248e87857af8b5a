import { describe, expect, it } from 'vitest';
import { checkPersona, integrationBranch, personaBranch } from './run-branches';

describe('run branches', () => {
  it('puts the integration branch beside the persona branches of the run', () => {
    expect(integrationBranch('r1')).toBe('headspace/r1/main');
    expect(personaBranch('r1', 'con')).toBe('headspace/r1/con');
  });

  it('gives a persona called main a branch no other persona can have', () => {
    expect(personaBranch('r1', 'main')).toBe('headspace/r1/main.persona');
    expect(personaBranch('r1', 'main-persona')).toBe('headspace/r1/main-persona');
  });

  it('refuses names that could escape the workspace or confuse git, naming the field', () => {
    for (const runId of ['../r1', 'R1', 'a b', '-x', 'r1.lock', '']) {
      expect(() => integrationBranch(runId)).toThrow(expect.objectContaining({ code: 'WORKSPACE.NAME_INVALID', field: 'runId' }));
    }
    for (const persona of ['../con', 'con/x', '.git', '--force', 'Con', '']) {
      expect(() => checkPersona(persona)).toThrow(expect.objectContaining({ code: 'WORKSPACE.NAME_INVALID', field: 'persona' }));
    }
  });
});
