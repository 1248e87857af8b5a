import { describe, expect, it } from 'vitest';
import { mayUseSkills } from './skill-policy';

describe('who may load skills', () => {
  it.each([
    [{}, true],
    [{ tools: ['Read', 'Skill'] }, true],
    [{ tools: ['Read', 'Skill(release-notes)'] }, true],
    [{ tools: ['*'] }, true],
    [{ tools: ['Read', 'Grep'] }, false],
    [{ disallowedTools: ['Skill'] }, false],
    [{ tools: ['Skill'], disallowedTools: ['Skill'] }, false],
  ])('%j → %s', (policy, expected) => expect(mayUseSkills(policy)).toBe(expected));
});
