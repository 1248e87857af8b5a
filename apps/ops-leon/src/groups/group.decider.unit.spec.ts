import { DeciderSpec } from '@headspace/event-store';
import { describe, expect, it } from 'vitest';
import { groupDecider, regresses, type GroupCommand, type GroupEvent } from './group.decider';

const groupId = 'grp_000000000000000000000001';
const base = { groupId, project: 'shop' };
const at = (minute: number) => `2025-03-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
const act = { by: 'leon', now: at(5) };

const opened: GroupEvent = {
  type: 'group.opened',
  data: { ...base, projectId: '1', fingerprint: 'f'.repeat(32), type: 'KeyError', title: '<str>', culprit: 'app/views.py in checkout', level: 'error', firstEventId: 'e1', at: at(0) },
};
const t = (type: string, from: string, to: string, extra: Record<string, unknown> = {}, minute = 1) =>
  ({ type, data: { ...base, from, to, by: 'leon', at: at(minute), ...extra } }) as GroupEvent;

/** The events that bring a group to each state along the happy path. */
const toAnalysing = [opened, t('group.analysing-started', 'NEW', 'ANALYSING')];
const toProposed = [...toAnalysing, t('group.fix-proposed', 'ANALYSING', 'FIX_PROPOSED', { approvalId: 'ap-1' })];
const toInProgress = [...toProposed, t('group.fix-started', 'FIX_PROPOSED', 'FIX_IN_PROGRESS', { runId: 'run-1' })];
const toCommitted = [...toInProgress, t('group.fix-committed', 'FIX_IN_PROGRESS', 'FIX_COMMITTED', { commit: 'abc123', release: '1.4.0' })];
const toVerified = [...toCommitted, t('group.verified', 'FIX_COMMITTED', 'VERIFIED')];
const toResolved = [...toVerified, t('group.resolved', 'VERIFIED', 'RESOLVED', { manual: false, fixRelease: '1.4.0', releasesBefore: ['1.3.0'] })];

const spec = () => DeciderSpec.for(groupDecider);
const illegal = (from: string, to: string) => (error: unknown) =>
  (error as { code?: string }).code === 'OPS.ILLEGAL_TRANSITION' && JSON.stringify((error as { details?: unknown }).details).includes(`"from":"${from}","to":"${to}"`);
const notFound = (error: unknown) => (error as { code?: string }).code === 'OPS.GROUP_NOT_FOUND';

describe('group lifecycle decider', () => {
  it('opens a group once: the first event of a fingerprint opens it NEW, later ones change nothing', () => {
    const open: GroupCommand = {
      type: 'open', ...base, projectId: '1', fingerprint: 'f'.repeat(32), errorType: 'KeyError', title: '<str>', culprit: 'app/views.py in checkout', level: 'error', eventId: 'e1', now: at(0),
    };
    spec().given([]).when(open).then([opened]);
    spec().given([opened]).when({ ...open, eventId: 'e2' }).then([]);
  });

  it('walks NEW → ANALYSING → FIX_PROPOSED → FIX_IN_PROGRESS → FIX_COMMITTED → VERIFIED → RESOLVED', () => {
    spec().given([opened]).when({ type: 'start-analysis', ...act }).then([t('group.analysing-started', 'NEW', 'ANALYSING', {}, 5)]);
    spec()
      .given(toAnalysing)
      .when({ type: 'record-triage', severity: 'error', domain: 'backend', persona: 'con', autoFixable: true, hypothesis: 'missing key', ...act })
      .then([t('group.triaged', 'ANALYSING', 'ANALYSING', { severity: 'error', domain: 'backend', persona: 'con', autoFixable: true, hypothesis: 'missing key' }, 5)]);
    spec().given(toAnalysing).when({ type: 'propose-fix', approvalId: 'ap-1', ...act }).then([t('group.fix-proposed', 'ANALYSING', 'FIX_PROPOSED', { approvalId: 'ap-1' }, 5)]);
    spec().given(toProposed).when({ type: 'start-fix', runId: 'run-1', ...act }).then([t('group.fix-started', 'FIX_PROPOSED', 'FIX_IN_PROGRESS', { runId: 'run-1' }, 5)]);
    spec().given(toInProgress).when({ type: 'commit-fix', commit: 'abc', ...act }).then([t('group.fix-committed', 'FIX_IN_PROGRESS', 'FIX_COMMITTED', { commit: 'abc' }, 5)]);
    spec().given(toCommitted).when({ type: 'verify', ...act }).then([t('group.verified', 'FIX_COMMITTED', 'VERIFIED', {}, 5)]);
    spec()
      .given(toVerified)
      .when({ type: 'resolve', manual: false, releases: ['1.3.0'], ...act })
      .then([t('group.resolved', 'VERIFIED', 'RESOLVED', { manual: false, fixRelease: '1.4.0', releasesBefore: ['1.3.0'] }, 5)]);
  });

  it('refuses a move its state does not allow with OPS.ILLEGAL_TRANSITION naming from and to', () => {
    spec().given([opened]).when({ type: 'start-fix', runId: 'r', ...act }).thenThrows(illegal('NEW', 'FIX_IN_PROGRESS'));
    spec().given(toAnalysing).when({ type: 'verify', ...act }).thenThrows(illegal('ANALYSING', 'VERIFIED'));
    spec().given(toCommitted).when({ type: 'resolve', manual: false, releases: [], ...act }).thenThrows(illegal('FIX_COMMITTED', 'RESOLVED'));
    spec().given(toInProgress).when({ type: 'dismiss', reason: 'noise', ...act }).thenThrows(illegal('FIX_IN_PROGRESS', 'DISMISSED'));
    spec().given(toResolved).when({ type: 'escalate', ...act }).thenThrows(illegal('RESOLVED', 'ESCALATED'));
    spec().given([opened]).when({ type: 'reopen', ...act }).thenThrows(illegal('NEW', 'NEW'));
  });

  it('refuses any transition of a group that was never opened with OPS.GROUP_NOT_FOUND', () => {
    spec().given([]).when({ type: 'dismiss', reason: 'x', ...act }).thenThrows(notFound);
    spec().given([]).when({ type: 'spike', windowSeconds: 60, count: 100, baseline: 2, factor: 5, now: at(1) }).thenThrows(notFound);
  });

  it('lets the operator dismiss with a reason, escalate, resolve by hand and reopen', () => {
    spec().given(toAnalysing).when({ type: 'dismiss', reason: 'noise from a bot', ...act }).then([t('group.dismissed', 'ANALYSING', 'DISMISSED', { reason: 'noise from a bot' }, 5)]);
    spec().given(toInProgress).when({ type: 'escalate', by: 'operator', now: at(5) }).then([{ type: 'group.escalated', data: { ...base, from: 'FIX_IN_PROGRESS', to: 'ESCALATED', by: 'operator', at: at(5) } }]);
    spec()
      .given([opened])
      .when({ type: 'resolve', manual: true, releases: ['1.0'], ...act })
      .then([t('group.resolved', 'NEW', 'RESOLVED', { manual: true, releasesBefore: ['1.0'] }, 5)]);
    spec().given([...toAnalysing, t('group.dismissed', 'ANALYSING', 'DISMISSED')]).when({ type: 'reopen', ...act }).then([t('group.reopened', 'DISMISSED', 'NEW', {}, 5)]);
  });

  it('regresses a resolved group on an event of a release after the fix, or of an unknown release; an old release still running does not', () => {
    const regress = (release?: string) => ({ type: 'regress' as const, eventId: 'e9', ...(release ? { release } : {}), now: at(9) });
    const regressed = (release?: string) => [
      { type: 'group.regressed', data: { ...base, from: 'RESOLVED', to: 'REGRESSED', by: 'leon', eventId: 'e9', ...(release ? { release } : {}), at: at(9) } },
    ];
    spec().given(toResolved).when(regress('1.5.0')).then(regressed('1.5.0') as GroupEvent[]);
    spec().given(toResolved).when(regress('1.4.0')).then(regressed('1.4.0') as GroupEvent[]);
    spec().given(toResolved).when(regress()).then(regressed() as GroupEvent[]);
    spec().given(toResolved).when(regress('1.3.0')).then([]);
    // Not resolved (any more): nothing to reopen.
    spec().given(toVerified).when(regress('2.0')).then([]);
    spec().given([...toResolved, ...(regressed('2.0') as GroupEvent[])]).when(regress('2.1')).then([]);
  });

  it('a regressed group can be analysed again', () => {
    const regressed = t('group.regressed', 'RESOLVED', 'REGRESSED', { eventId: 'e9' }, 9);
    spec().given([...toResolved, regressed]).when({ type: 'start-analysis', ...act }).then([t('group.analysing-started', 'REGRESSED', 'ANALYSING', {}, 5)]);
  });

  it('records a spike at most once per window', () => {
    const spike = (minute: number) => ({ type: 'spike' as const, windowSeconds: 60, count: 120, baseline: 3, factor: 5, now: at(minute) });
    const spiked = (minute: number): GroupEvent => ({ type: 'group.spiked', data: { ...base, windowSeconds: 60, count: 120, baseline: 3, factor: 5, at: at(minute) } });
    spec().given([opened]).when(spike(3)).then([spiked(3)]);
    spec().given([opened, spiked(3)]).when({ ...spike(3), now: '2025-03-01T10:03:59.000Z' }).then([]);
    spec().given([opened, spiked(3)]).when(spike(4)).then([spiked(4)]);
  });

  it('judges regression without I/O, for the ingest path to ask before it appends', () => {
    const resolved = { status: 'RESOLVED' as const, groupId, project: 'shop', openedAt: at(0), releasesBefore: ['1.0'], fixRelease: '1.1' };
    expect(regresses(resolved, '1.0')).toBe(false);
    expect(regresses(resolved, '1.1')).toBe(true);
    expect(regresses(resolved, '1.2')).toBe(true);
    expect(regresses({ ...resolved, status: 'NEW' }, '1.2')).toBe(false);
  });

  it("records remediation's facts on its transitions and climbs the escalation ladder from ESCALATED", () => {
    const toEscalated = [...toAnalysing, t('group.escalated', 'ANALYSING', 'ESCALATED', { level: 'gavin' })];
    spec()
      .given(toEscalated)
      .when({ type: 'escalate', level: 'robbo', reason: 'Gavin: needs a design', ...act })
      .then([t('group.escalated', 'ESCALATED', 'ESCALATED', { level: 'robbo', reason: 'Gavin: needs a design' }, 5)]);
    spec()
      .given(toAnalysing)
      .when({ type: 'propose-fix', approach: 'guard the null cart', approvalSkipped: 'trusted', ...act })
      .then([t('group.fix-proposed', 'ANALYSING', 'FIX_PROPOSED', { approach: 'guard the null cart', approvalSkipped: 'trusted' }, 5)]);
    spec().given(toProposed).when({ type: 'start-fix', runId: 'fix-1', team: 'red', ...act }).then([t('group.fix-started', 'FIX_PROPOSED', 'FIX_IN_PROGRESS', { runId: 'fix-1', team: 'red' }, 5)]);
    spec()
      .given(toInProgress)
      .when({ type: 'commit-fix', commit: 'c0ffee', release: 'c0ffee', runId: 'fix-1', regressionTest: 'test/cart.test.js', ...act })
      .then([t('group.fix-committed', 'FIX_IN_PROGRESS', 'FIX_COMMITTED', { commit: 'c0ffee', release: 'c0ffee', runId: 'fix-1', regressionTest: 'test/cart.test.js' }, 5)]);
    spec().given(toCommitted).when({ type: 'verify', windowSeconds: 600, ...act }).then([t('group.verified', 'FIX_COMMITTED', 'VERIFIED', { windowSeconds: 600 }, 5)]);
  });
});
