import { describe, expect, it } from 'vitest';
import { chooseRuntime } from './session-runtime';

describe('choosing a session’s runtime', () => {
  it('takes the run’s runtime over the member’s and the persona’s', () => {
    expect(chooseRuntime({ run: 'built-in', member: 'claude-code', persona: 'claude-code' })).toBe('built-in');
    expect(chooseRuntime({ run: 'claude-code', member: 'built-in', persona: 'built-in' })).toBe('claude-code');
  });

  it('takes the member’s runtime over the persona’s default when the run names none', () => {
    expect(chooseRuntime({ member: 'claude-code', persona: 'built-in' })).toBe('claude-code');
    expect(chooseRuntime({ member: 'built-in', persona: 'claude-code' })).toBe('built-in');
  });

  it('falls back to the persona’s default, then to the built-in runtime', () => {
    expect(chooseRuntime({ persona: 'claude-code' })).toBe('claude-code');
    expect(chooseRuntime({})).toBe('built-in');
  });
});
