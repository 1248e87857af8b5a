import { describe, expect, it } from 'vitest';
import { errorSignature, normaliseFailureLine } from './error-signature';

describe('error signature of a failed check', () => {
  it('is the same for one failure that differs only in pids, times, paths and durations', () => {
    const a = 'FAIL test/login.test.mjs\nAssertionError: expected "hello" got "helo" (pid 4121 at 2026-11-27T02:00:01.123Z)\n  at /tmp/hs-loop-abc/worktrees/con/login.mjs:12:7\nTests 1 failed (31ms)';
    const b = 'FAIL test/login.test.mjs\nAssertionError: expected "hello" got "helo" (pid 977 at 2026-11-27T02:14:55.004Z)\n  at /tmp/hs-loop-xyz/worktrees/con/login.mjs:14:3\nTests 1 failed (48ms)';
    expect(errorSignature(a)).toBe(errorSignature(b));
  });

  it('differs for a different error', () => {
    expect(errorSignature('AssertionError: expected "hello" got "helo"')).not.toBe(errorSignature('TypeError: compare is not a function'));
  });

  it('ignores colour codes and blank lines', () => {
    expect(errorSignature('\u001b[31mError: boom\u001b[0m\n\n')).toBe(errorSignature('Error: boom'));
  });

  it('falls back on the last lines when no line names a failure', () => {
    expect(errorSignature('building\nstep 1 of 3\nexit status')).toBe(errorSignature('building\nstep 2 of 3\nexit status'));
    expect(errorSignature('building\nstep 1 of 3\nexit status')).toMatch(/^[0-9a-f]{16}$/);
  });

  it('normalises a line to its words and shape', () => {
    expect(normaliseFailureLine('Error at 12:03:44 in /tmp/x/y.ts:3:9 id deadbeef42')).toBe('Error at <time> in <path>:<n>:<n> id <hex>');
  });
});
