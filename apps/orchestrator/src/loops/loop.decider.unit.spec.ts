import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { DeciderSpec } from '@headspace/event-store';
import { describe, it } from 'vitest';
import { loopDecider, type LoopCommand, type LoopEvent } from './loop.decider';

const now = '2026-11-27T02:00:00.000Z';
const loopId = 'fix-login-1a2b3c4d';
const routing = {
  model: 'claude-sonnet-4-6',
  tier: 'sonnet' as const,
  effort: 'standard' as const,
  thinkingBudgetTokens: 10_000,
  reasons: ['default'],
  signals: { isExploration: false, filesAffected: 1, requiresReasoning: false, isTeamLead: false, dependencyDepth: 0, ambiguity: 'low' as const },
  pinned: false,
};
const limits = { maxIterations: 4, maxDiffLines: 100, sameErrorLimit: 3, stopFile: '.auto/stop' };
const startedData = { loopId, team: 'red', task: 'make the login check pass', persona: 'con', workspace: '/src/app', check: 'npm test', limits, routing, simulated: true };
const started: LoopEvent = { type: 'loop.started', data: { ...startedData, startedAt: now } };
const base = (n: number) => String(n).repeat(40);
const iterationData = (n: number) => ({ loopId, iteration: n, sessionId: `${loopId}.loop.i${n}`, dir: '/ws/checkout', branch: `headspace/${loopId}/con`, worktree: '/ws/worktrees/con', baseCommit: base(n - 1) });
const iterationStarted = (n: number): LoopEvent => ({ type: 'loop.iteration-started', data: { ...iterationData(n), at: now } });
const failing = (signature: string) => ({ exitCode: 1, passed: false, signature, output: 'AssertionError' });
const endData = (n: number, over: Partial<Extract<LoopCommand, { type: 'end-iteration' }>> = {}) => ({
  loopId,
  iteration: n,
  sessionId: `${loopId}.loop.i${n}`,
  agentStatus: 'partial' as const,
  summary: `tried ${n}`,
  checkpoint: base(n),
  diffLines: 10,
  filesChanged: ['login.mjs'],
  check: failing(`sig-${n}`),
  learnings: [],
  ...over,
});
const iterationEnded = (n: number, over: Partial<Extract<LoopCommand, { type: 'end-iteration' }>> = {}): LoopEvent => ({ type: 'loop.iteration-ended', data: { ...endData(n, over), at: now } });
const end = (n: number, over: Partial<Extract<LoopCommand, { type: 'end-iteration' }>> = {}): LoopCommand => ({ type: 'end-iteration', ...endData(n, over), now });
const begin = (n: number, stopFilePresent = false): LoopCommand => ({ type: 'begin-iteration', ...iterationData(n), stopFilePresent, now });
const stopped = (reason: Extract<LoopEvent, { type: 'loop.stopped' }>['data']['reason'], detail: string, revertedTo?: string): LoopEvent => ({
  type: 'loop.stopped',
  data: { loopId, reason, detail, ...(revertedTo ? { revertedTo } : {}), at: now },
});

const spec = DeciderSpec.for(loopDecider);
const notFound = (e: unknown) => e instanceof HeadspaceError && e.code === ErrorCodes.loopNotFound && e.field === 'loopId';

describe('loop decider', () => {
  describe('start-loop', () => {
    it('records the task, its limits and routing', () => spec.given([]).when({ type: 'start-loop', ...startedData, now }).then([started]));
    it('records nothing for a retried start', () => spec.given([started]).when({ type: 'start-loop', ...startedData, now }).then([]));
  });

  describe('begin-iteration (the boundary)', () => {
    it('starts the first iteration', () => spec.given([started]).when(begin(1)).then([iterationStarted(1)]));
    it('starts no iteration while one is at work', () => spec.given([started, iterationStarted(1)]).when(begin(2)).then([]));
    it('starts only the next iteration, not one already begun or skipped ahead', () => spec.given([started, iterationStarted(1), iterationEnded(1)]).when(begin(3)).then([]));
    it('stops on the stop file instead of starting the iteration', () =>
      spec.given([started, iterationStarted(1), iterationEnded(1)]).when(begin(2, true)).then([stopped('stop-file', 'The stop file .auto/stop was present before iteration 2')]));
    it('stops on an operator’s stop request', () =>
      spec.given([started, iterationStarted(1), iterationEnded(1), { type: 'loop.stop-requested', data: { loopId, at: now } }]).when(begin(2)).then([stopped('stop-requested', 'Stopped on request before iteration 2')]));
    it('refuses an unknown loop naming loopId', () => spec.given([]).when(begin(1)).thenThrows(notFound));
  });

  describe('end-iteration (the safety controls)', () => {
    it('continues after a failing check with budget left', () => spec.given([started, iterationStarted(1)]).when(end(1)).then([iterationEnded(1)]));
    it('ignores an outcome from another session', () => spec.given([started, iterationStarted(1)]).when(end(1, { sessionId: 'other' })).then([]));
    it('succeeds when the check passes', () =>
      spec.given([started, iterationStarted(1)]).when(end(1, { check: { exitCode: 0, passed: true, signature: null, output: '' } })).then([
        iterationEnded(1, { check: { exitCode: 0, passed: true, signature: null, output: '' } }),
        stopped('succeeded', 'The check passed after iteration 1'),
      ]));
    it('does not take the agent’s word for success when a check is set (the acceptance gate)', () =>
      spec.given([started, iterationStarted(1)]).when(end(1, { agentStatus: 'completed' })).then([iterationEnded(1, { agentStatus: 'completed' })]));
    it('succeeds on the agent’s word when there is no check', () => {
      const noCheck: LoopEvent = { type: 'loop.started', data: { ...started.data, check: undefined } as Extract<LoopEvent, { type: 'loop.started' }>['data'] };
      return spec
        .given([noCheck, iterationStarted(1)])
        .when(end(1, { agentStatus: 'completed', check: null }))
        .then([iterationEnded(1, { agentStatus: 'completed', check: null }), stopped('succeeded', 'The agent reported the task completed in iteration 1 (no check command)')]);
    });
    it('stops on the diff limit, naming the checkpoint the work was reverted to', () =>
      spec.given([started, iterationStarted(1)]).when(end(1, { diffLines: 101, check: null })).then([
        iterationEnded(1, { diffLines: 101, check: null }),
        stopped('diff-limit', 'Iteration 1 changed 101 lines, over the limit of 100; its work was reverted to the last good checkpoint', base(0)),
      ]));
    it('stops when the same error signature comes N times in a row', () =>
      spec
        .given([started, iterationStarted(1), iterationEnded(1, { check: failing('same') }), iterationStarted(2), iterationEnded(2, { check: failing('same') }), iterationStarted(3)])
        .when(end(3, { check: failing('same') }))
        .then([iterationEnded(3, { check: failing('same') }), stopped('same-error', 'The check failed with the same error (signature same) 3 iterations in a row')]));
    it('keeps going when the same error was interrupted by another', () =>
      spec
        .given([started, iterationStarted(1), iterationEnded(1, { check: failing('same') }), iterationStarted(2), iterationEnded(2, { check: failing('other') }), iterationStarted(3)])
        .when(end(3, { check: failing('same') }))
        .then([iterationEnded(3, { check: failing('same') })]));
    it('stops at max iterations', () =>
      spec
        .given([started, iterationStarted(1), iterationEnded(1), iterationStarted(2), iterationEnded(2), iterationStarted(3), iterationEnded(3), iterationStarted(4)])
        .when(end(4))
        .then([iterationEnded(4), stopped('max-iterations', '4 iterations ran without success')]));
  });

  describe('request-stop and fail-loop', () => {
    it('records a stop request once', () => spec.given([started]).when({ type: 'request-stop', loopId, now }).then([{ type: 'loop.stop-requested', data: { loopId, at: now } }]));
    it('records nothing for a loop that ended', () => spec.given([started, stopped('failed', 'x')]).when({ type: 'request-stop', loopId, now }).then([]));
    it('fails a running loop with its reason', () => spec.given([started]).when({ type: 'fail-loop', loopId, reason: 'no checkout', now }).then([stopped('failed', 'no checkout')]));
  });
});
