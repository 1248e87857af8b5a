import { describe, expect, it } from 'vitest';
import {
  afterRun,
  fixRunId,
  isFixRunId,
  parseJudgement,
  planAfterJudgement,
  planAfterTriage,
  verification,
  type ProjectFacts,
  type TriageFacts,
} from './remediation.policy';

const triage: TriageFacts = { severity: 'warning', domain: 'backend', persona: 'con', autoFixable: true, complex: false, hypothesis: 'the cart is null', approach: 'guard the null cart' };
const project: ProjectFacts = { project: 'shop', team: 'red', trusted: false };
const trusted: ProjectFacts = { ...project, trusted: true };

describe('remediation after triage', () => {
  it('given an auto-fixable group of a project with a team, when triaged, then asks for a fix approval with triage’s approach', () => {
    expect(planAfterTriage(triage, project, 'warning')).toEqual({ kind: 'ask-approval', approach: 'guard the null cart' });
  });

  it('given a trusted project, when a warning is triaged, then the fix skips approval; an error still asks', () => {
    expect(planAfterTriage(triage, trusted, 'warning')).toEqual({ kind: 'fix-trusted', approach: 'guard the null cart' });
    expect(planAfterTriage({ ...triage, severity: 'error' }, trusted, 'warning')).toEqual({ kind: 'ask-approval', approach: 'guard the null cart' });
    expect(planAfterTriage({ ...triage, severity: 'error' }, trusted, 'error')).toEqual({ kind: 'fix-trusted', approach: 'guard the null cart' });
  });

  it('given a complex or not auto-fixable group, when triaged, then it escalates to Gavin with the reason', () => {
    expect(planAfterTriage({ ...triage, complex: true }, trusted, 'critical')).toEqual({ kind: 'escalate', level: 'gavin', reason: 'complex: the cart is null' });
    expect(planAfterTriage({ ...triage, autoFixable: false }, project, 'warning')).toMatchObject({ kind: 'escalate', level: 'gavin', reason: expect.stringMatching(/^not auto-fixable/) });
  });

  it('given a project without a team, when triaged, then it escalates straight to the operator saying so', () => {
    expect(planAfterTriage(triage, { project: 'shop', trusted: true }, 'warning')).toEqual({
      kind: 'escalate',
      level: 'operator',
      reason: expect.stringContaining('project shop has no team'),
    });
  });

  it('given noise, when triaged, then remediation does nothing (triage dismissed it)', () => {
    expect(planAfterTriage({ ...triage, severity: 'noise' }, project, 'warning')).toMatchObject({ kind: 'nothing' });
  });
});

describe('the escalation ladder', () => {
  it('given Gavin says fix, then the fix is proposed with his approach (approval, or trusted skip)', () => {
    const judgement = { decision: 'fix' as const, approach: 'retry the lock', reason: 'a task' };
    expect(planAfterJudgement('gavin', { judgement }, triage, project, 'warning')).toEqual({ kind: 'ask-approval', approach: 'retry the lock' });
    expect(planAfterJudgement('gavin', { judgement }, triage, trusted, 'warning')).toEqual({ kind: 'fix-trusted', approach: 'retry the lock' });
    expect(planAfterJudgement('robbo', { judgement: { ...judgement, approach: '' } }, triage, project, 'warning')).toEqual({ kind: 'ask-approval', approach: 'guard the null cart' });
  });

  it('given Gavin escalates, then Robbo is next; given Robbo escalates, then the operator', () => {
    const up = { judgement: { decision: 'escalate' as const, approach: '', reason: 'crosses services' } };
    expect(planAfterJudgement('gavin', up, triage, project, 'warning')).toEqual({ kind: 'escalate', level: 'robbo', reason: 'Gavin: crosses services' });
    expect(planAfterJudgement('robbo', up, triage, project, 'warning')).toEqual({ kind: 'escalate', level: 'operator', reason: 'Robbo: crosses services' });
  });

  it('given no usable answer (refused by the budget, not JSON), then it climbs one rung naming why', () => {
    expect(planAfterJudgement('gavin', { unanswered: 'budget paused' }, triage, project, 'warning')).toEqual({
      kind: 'escalate',
      level: 'robbo',
      reason: 'Gavin gave no usable answer: budget paused',
    });
  });

  it('reads the judgement JSON out of prose or a code fence, and nothing else', () => {
    expect(parseJudgement('Sure.\n```json\n{"decision":"fix","approach":"add an index","reason":"slow query"}\n```')).toEqual({ decision: 'fix', approach: 'add an index', reason: 'slow query' });
    expect(parseJudgement('{"decision":"escalate"}')).toEqual({ decision: 'escalate', approach: '', reason: '' });
    expect(parseJudgement('{"decision":"maybe"}')).toBeNull();
    expect(parseJudgement('I would fix it')).toBeNull();
    expect(parseJudgement('{not json}')).toBeNull();
  });
});

describe('fix runs', () => {
  it('names the n-th fix run of a group after the first 12 hex of its id', () => {
    expect(fixRunId('grp_0123456789abcdef01234567', 2)).toBe('fix-0123456789ab-2');
    expect(isFixRunId('fix-0123456789ab-2')).toBe(true);
    expect(isFixRunId('run-0123456789ab-2')).toBe(false);
  });

  it('given the run completed done, then the fix is committed at its head; failed or with issues, then Gavin hears why', () => {
    expect(afterRun({ type: 'run.completed', runId: 'fix-a-1', verdict: 'done', headCommit: 'c0ffee' })).toEqual({ kind: 'commit', commit: 'c0ffee' });
    expect(afterRun({ type: 'run.failed', runId: 'fix-a-1', reason: 'the regression test never failed' })).toEqual({
      kind: 'escalate',
      level: 'gavin',
      reason: 'fix run fix-a-1 failed: the regression test never failed',
    });
    expect(afterRun({ type: 'run.completed', runId: 'fix-a-1', verdict: 'issues', headCommit: 'c0ffee' })).toMatchObject({ kind: 'escalate', level: 'gavin' });
  });
});

describe('verification window', () => {
  const committedAtMs = Date.parse('2025-03-01T10:00:00Z');
  const at = (seconds: number) => committedAtMs + seconds * 1_000;

  it('given the after-fix check passed and no event of the fix release, then it waits out the window and verifies', () => {
    expect(verification({ afterFixOk: true, fixReleaseSeen: false, committedAtMs, windowSeconds: 600, nowMs: at(599) })).toBe('wait');
    expect(verification({ afterFixOk: true, fixReleaseSeen: false, committedAtMs, windowSeconds: 600, nowMs: at(600) })).toBe('verify');
  });

  it('given an event of the fix release inside the window, then the fix did not hold', () => {
    expect(verification({ afterFixOk: true, fixReleaseSeen: true, committedAtMs, windowSeconds: 600, nowMs: at(30) })).toBe('did-not-hold');
  });

  it('given no passing after-fix check, then it is never verified', () => {
    expect(verification({ afterFixOk: false, fixReleaseSeen: false, committedAtMs, windowSeconds: 0, nowMs: at(10) })).toBe('unverified');
    expect(verification({ afterFixOk: null, fixReleaseSeen: false, committedAtMs, windowSeconds: 0, nowMs: at(10) })).toBe('unverified');
  });
});
