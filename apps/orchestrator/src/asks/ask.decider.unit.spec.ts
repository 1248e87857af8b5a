import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { DeciderSpec } from '@headspace/event-store';
import { describe, it } from 'vitest';
import { askDecider, type AskCommand, type AskEvent } from './ask.decider';

const now = '2026-11-26T10:00:00.000Z';
const later = '2026-11-26T10:00:09.000Z';
const askId = 'fix-the-typo-1a2b3c4d';
const routing = {
  model: 'claude-haiku-4-5',
  tier: 'haiku' as const,
  effort: 'quick' as const,
  thinkingBudgetTokens: 2_000,
  reasons: ['names 1 file: README.md', 'single-file task without reasoning → haiku'],
  signals: { isExploration: false, filesAffected: 1, requiresReasoning: false, isTeamLead: false, dependencyDepth: 0, ambiguity: 'low' as const },
  pinned: false,
};
const startedData = { askId, team: 'red', prompt: 'fix the typo in README.md', promptDigest: 'a'.repeat(64), persona: 'con', workspace: '/src/app', routing, simulated: true };
const started: AskEvent = { type: 'ask.started', data: { ...startedData, startedAt: now } };
const sessionData = { askId, sessionId: `${askId}.ask.a1`, persona: 'con', dir: '/ws/checkout', branch: `headspace/${askId}/main`, baseCommit: 'b'.repeat(40), worktree: '/ws/worktrees/con' };
const sessionStarted: AskEvent = { type: 'ask.session-started', data: { ...sessionData, at: now } };
const usage = { inputTokens: 1_200, outputTokens: 300, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 };
const completion = { askId, sessionId: sessionData.sessionId, result: 'Fixed "teh" → "the".', filesChanged: ['README.md'], dir: '/ws/checkout', branch: sessionData.branch, commit: 'c'.repeat(40), costUsd: '0.0027', usage, turns: 2 };
const completed: AskEvent = { type: 'ask.completed', data: { ...completion, at: later } };
const failed: AskEvent = { type: 'ask.failed', data: { askId, reason: 'budget stopped', at: later } };

const spec = DeciderSpec.for(askDecider);
const notFound = (e: unknown) => e instanceof HeadspaceError && e.code === ErrorCodes.askNotFound && e.field === 'askId';

describe('ask decider', () => {
  describe('start-ask', () => {
    const start: AskCommand = { type: 'start-ask', ...startedData, now };
    it('records the request with its routing decision', () => spec.given([]).when(start).then([started]));
    it('records nothing when the ask exists already (a retried start)', () => spec.given([started]).when(start).then([]));
  });

  describe('record-session-started', () => {
    const command: AskCommand = { type: 'record-session-started', ...sessionData, now };
    it('records the one session of a running ask', () => spec.given([started]).when(command).then([sessionStarted]));
    it('records it once', () => spec.given([started, sessionStarted]).when(command).then([]));
    it('starts nothing on an ask that failed', () => spec.given([started, failed]).when(command).then([]));
    it('refuses an ask that does not exist, naming askId', () => spec.given([]).when(command).thenThrows(notFound));
  });

  describe('complete-ask', () => {
    const command: AskCommand = { type: 'complete-ask', ...completion, now: later };
    it('records the result, files, branch, cost and usage of its session', () => spec.given([started, sessionStarted]).when(command).then([completed]));
    it('completes once', () => spec.given([started, sessionStarted, completed]).when(command).then([]));
    it('ignores an outcome of a session it did not start', () => spec.given([started, sessionStarted]).when({ ...command, sessionId: 'other' }).then([]));
    it('ignores an outcome before its session was recorded', () => spec.given([started]).when(command).then([]));
  });

  describe('fail-ask', () => {
    const command: AskCommand = { type: 'fail-ask', askId, reason: 'budget stopped', now: later };
    it('fails a running ask with the reason', () => spec.given([started, sessionStarted]).when(command).then([failed]));
    it('leaves a completed ask completed', () => spec.given([started, sessionStarted, completed]).when(command).then([]));
    it('refuses an ask that does not exist', () => spec.given([]).when(command).thenThrows(notFound));
  });
});
