import { describe, expect, it } from 'vitest';
import { iterationLine, loopSummaryLines, type LoopViewLike } from './loop-output';

const failed = { iteration: 1, status: 'ended' as const, agentStatus: 'partial', summary: 'x', checkpoint: 'abcdef0123456789', diffLines: 4, check: { exitCode: 1, passed: false, signature: '0123456789abcdef' }, learnings: ['await it'] };

describe('loop output', () => {
  it('says what an iteration did: check, lines changed, checkpoint and learnings', () => {
    expect(iterationLine(failed)).toBe('iteration 1 ended (partial): check failed (exit 1, signature 0123456789abcdef); 4 lines changed; checkpoint abcdef012345; learned: await it');
  });

  it('ends with the stop reason, the iterations and the cost labelled simulated', () => {
    const view: LoopViewLike = {
      loopId: 'l1',
      status: 'stopped',
      simulated: true,
      branch: 'headspace/l1/con',
      dir: '/ws/l1/checkout',
      iterations: [failed],
      stopReason: 'same-error',
      stopDetail: 'The check failed with the same error 3 iterations in a row',
      revertedTo: null,
      costUsd: '0.01',
      limits: { maxIterations: 5 },
    };
    expect(loopSummaryLines(view)).toEqual([
      '✖ loop l1 stopped (same-error)  [simulated]',
      'reason:  The check failed with the same error 3 iterations in a row',
      'iterations: 1 of at most 5',
      `  ${iterationLine(failed)}`,
      'result:  branch headspace/l1/con in /ws/l1/checkout',
      'cost:    $0.01 (simulated)',
    ]);
  });
});
