import { describe, expect, it } from 'vitest';
import type { LoopState } from './loop.decider';
import { renderLoopContext } from './loop-context';

const at = '2026-11-27T02:00:00.000Z';
const started = {
  loopId: 'l1',
  team: 'red',
  task: 'Make the login check pass',
  persona: 'con',
  workspace: '/src/app',
  check: 'node test.mjs',
  limits: { maxIterations: 5, maxDiffLines: 200, sameErrorLimit: 3, stopFile: '.auto/stop' },
  routing: {} as never,
  simulated: true,
  startedAt: at,
};
const iteration = { loopId: 'l1', iteration: 1, sessionId: 'l1.loop.i1', dir: '/d', branch: 'b', worktree: '/w', baseCommit: 'a'.repeat(40), at };

describe('loop-context file', () => {
  it('tells the first iteration its goal, gate and budget, with nothing learned yet', () => {
    const text = renderLoopContext({ status: 'running', started, iterations: [], stopRequested: false }, 1);
    expect(text).toContain('## Goal\n\nMake the login check pass');
    expect(text).toContain('`node test.mjs`');
    expect(text).toContain('This is iteration 1 of at most 5.');
    expect(text).toContain('## Learnings from earlier iterations\n\n- none yet');
    expect(text).not.toContain('## Last check failure');
  });

  it('feeds an earlier iteration’s learnings, attempt and check failure to the next', () => {
    const state: LoopState = {
      status: 'running',
      started,
      stopRequested: false,
      iterations: [
        {
          started: iteration,
          ended: {
            loopId: 'l1',
            iteration: 1,
            sessionId: 'l1.loop.i1',
            agentStatus: 'partial',
            summary: 'Wrote the check without await',
            checkpoint: 'c'.repeat(40),
            diffLines: 4,
            filesChanged: ['login.mjs'],
            check: { exitCode: 1, passed: false, signature: '0123456789abcdef', output: 'AssertionError: login accepted a wrong password' },
            learnings: ['bcrypt.compare is async: always await it'],
            at,
          },
        },
      ],
    };
    const text = renderLoopContext(state, 2);
    expect(text).toContain('This is iteration 2 of at most 5.');
    expect(text).toContain('- bcrypt.compare is async: always await it (iteration 1)');
    expect(text).toContain('- Iteration 1 (partial): Wrote the check without await — the check failed (exit 1, error signature 0123456789abcdef); 4 lines changed.');
    expect(text).toContain('## Last check failure\n\n```text\nAssertionError: login accepted a wrong password\n```');
  });
});
