import {
  ErrorCodes,
  HeadspaceError,
  type EventData,
  type ExceptionDomain,
  type ExceptionLevel,
  type ExceptionSeverity,
  type GroupState,
  groupAnalysingStarted,
  groupDismissed,
  groupEscalated,
  groupFixCommitted,
  groupFixProposed,
  groupFixStarted,
  groupOpened,
  groupRegressed,
  groupReopened,
  groupResolved,
  groupSpiked,
  groupTriaged,
  groupVerified,
} from '@headspace/contracts';
import { decideByType, evolveByType, type Decider } from '@headspace/event-store';

type Ev<D> = D extends { type: infer T } ? { type: T; data: EventData<D> } : never;
export type GroupEvent =
  | Ev<typeof groupOpened>
  | Ev<typeof groupSpiked>
  | Ev<typeof groupAnalysingStarted>
  | Ev<typeof groupTriaged>
  | Ev<typeof groupFixProposed>
  | Ev<typeof groupFixStarted>
  | Ev<typeof groupFixCommitted>
  | Ev<typeof groupVerified>
  | Ev<typeof groupResolved>
  | Ev<typeof groupDismissed>
  | Ev<typeof groupEscalated>
  | Ev<typeof groupReopened>
  | Ev<typeof groupRegressed>;

export type Lifecycle =
  | { status: 'none' }
  | {
      status: GroupState;
      groupId: string;
      project: string;
      openedAt: string;
      severity?: ExceptionSeverity;
      fixRelease?: string;
      /** Releases it had been seen in when it was resolved (regression is judged against them). */
      releasesBefore: string[];
      lastSpikeAt?: string;
    };
type Open = Exclude<Lifecycle, { status: 'none' }>;
/** Seed 000 §4.7: Gavin, then Robbo, then the operator. */
export type EscalationLevel = 'gavin' | 'robbo' | 'operator';

/** How triage reached its verdict (group.triaged's optional fields). */
export interface TriageDetails {
  complex?: boolean;
  approach?: string;
  ruleReasons?: string[];
  source?: 'rules' | 'model';
  models?: string[];
  simulated?: boolean;
}

interface Act {
  by: string;
  reason?: string;
  now: string;
}

export type GroupCommand =
  | {
      type: 'open';
      groupId: string;
      project: string;
      projectId: string;
      fingerprint: string;
      errorType: string;
      title: string;
      culprit: string;
      level: ExceptionLevel;
      eventId: string;
      release?: string;
      environment?: string;
      now: string;
    }
  | { type: 'spike'; windowSeconds: number; count: number; baseline: number; factor: number; now: string }
  | { type: 'regress'; eventId: string; release?: string; now: string }
  | ({ type: 'start-analysis' } & Act)
  | ({ type: 'record-triage'; severity: ExceptionSeverity; domain: ExceptionDomain; persona: string; autoFixable: boolean; hypothesis: string } & TriageDetails & Act)
  | ({ type: 'propose-fix'; approvalId?: string; approach?: string; approvalSkipped?: 'trusted' } & Act)
  | ({ type: 'start-fix'; runId: string; team?: string } & Act)
  | ({ type: 'commit-fix'; commit: string; release?: string; runId?: string; regressionTest?: string } & Act)
  | ({ type: 'verify'; windowSeconds?: number } & Act)
  /** Verified → resolved, or by hand from any open state (`manual`); `releases`: where it was seen so far. */
  | ({ type: 'resolve'; manual: boolean; releases: string[] } & Act)
  | ({ type: 'dismiss' } & Act)
  | ({ type: 'escalate'; level?: EscalationLevel } & Act)
  | ({ type: 'reopen' } & Act);

const ACTIVE: GroupState[] = ['NEW', 'ANALYSING', 'FIX_PROPOSED', 'FIX_IN_PROGRESS', 'FIX_COMMITTED', 'VERIFIED', 'ESCALATED', 'REGRESSED'];

/**
 * The legal moves: from which states each transition may start, and where it leads. Anything else
 * is OPS.ILLEGAL_TRANSITION. A manual resolve is allowed from every active state; the automatic
 * one only after verification.
 */
export const MOVES = {
  'start-analysis': { from: ['NEW', 'REGRESSED', 'ESCALATED'], to: 'ANALYSING' },
  'record-triage': { from: ['ANALYSING'], to: 'ANALYSING' },
  'propose-fix': { from: ['ANALYSING', 'ESCALATED'], to: 'FIX_PROPOSED' },
  'start-fix': { from: ['FIX_PROPOSED', 'ESCALATED'], to: 'FIX_IN_PROGRESS' },
  'commit-fix': { from: ['FIX_IN_PROGRESS'], to: 'FIX_COMMITTED' },
  verify: { from: ['FIX_COMMITTED'], to: 'VERIFIED' },
  resolve: { from: ['VERIFIED'], to: 'RESOLVED' },
  'resolve-manually': { from: ACTIVE, to: 'RESOLVED' },
  dismiss: { from: ['NEW', 'ANALYSING', 'FIX_PROPOSED', 'ESCALATED', 'REGRESSED'], to: 'DISMISSED' },
  // From ESCALATED too: the ladder climbs (Gavin → Robbo → operator) one escalated event per level.
  escalate: { from: ['NEW', 'ANALYSING', 'FIX_PROPOSED', 'FIX_IN_PROGRESS', 'FIX_COMMITTED', 'REGRESSED', 'ESCALATED'], to: 'ESCALATED' },
  reopen: { from: ['RESOLVED', 'DISMISSED', 'ESCALATED'], to: 'NEW' },
} satisfies Record<string, { from: GroupState[]; to: GroupState }>;
type Move = keyof typeof MOVES;

/**
 * An event of a resolved group regresses it unless it comes from a release the group was seen in
 * before it was resolved and that is not the fix's own release (an old deploy still running).
 * With the release unknown, any event regresses.
 */
export function regresses(state: Lifecycle, release: string | undefined): boolean {
  if (state.status !== 'RESOLVED') return false;
  if (release === undefined) return true;
  if (state.fixRelease !== undefined && release === state.fixRelease) return true;
  return !state.releasesBefore.includes(release);
}

function mustExist(state: Lifecycle): Open {
  if (state.status === 'none') throw new HeadspaceError(ErrorCodes.opsGroupNotFound, 'No such exception group', { field: 'groupId' });
  return state;
}

function move(state: Lifecycle, name: Move, act: Act) {
  const group = mustExist(state);
  const { from, to } = MOVES[name] as { from: GroupState[]; to: GroupState };
  if (!from.includes(group.status)) {
    throw new HeadspaceError(ErrorCodes.opsIllegalTransition, `Group ${group.groupId} cannot go from ${group.status} to ${to} (${name})`, {
      details: { groupId: group.groupId, from: group.status, to, transition: name },
    });
  }
  return { groupId: group.groupId, project: group.project, from: group.status, to, by: act.by, ...(act.reason ? { reason: act.reason } : {}), at: act.now };
}

/** The fields that are set (an event carries no `undefined` keys). */
const optional = <T extends Record<string, unknown>>(fields: T) => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== '')) as Partial<T>;

const decide = decideByType<GroupCommand, Lifecycle, GroupEvent>({
  open: (c, state) =>
    state.status !== 'none'
      ? []
      : [
          {
            type: 'group.opened',
            data: {
              groupId: c.groupId,
              project: c.project,
              projectId: c.projectId,
              fingerprint: c.fingerprint,
              type: c.errorType,
              title: c.title,
              culprit: c.culprit,
              level: c.level,
              firstEventId: c.eventId,
              ...(c.release ? { release: c.release } : {}),
              ...(c.environment ? { environment: c.environment } : {}),
              at: c.now,
            },
          },
        ],
  // At most one spike per window: a storm keeps tripping the detector, the group records it once.
  spike: (c, state) => {
    const group = mustExist(state);
    if (group.lastSpikeAt && Date.parse(c.now) - Date.parse(group.lastSpikeAt) < c.windowSeconds * 1_000) return [];
    const { now, type: _type, ...rest } = c;
    return [{ type: 'group.spiked', data: { groupId: group.groupId, project: group.project, ...rest, at: now } }];
  },
  // Asked by the ingest path for every event it believes regresses: only a still-resolved group moves.
  regress: (c, state) => {
    if (!regresses(state, c.release)) return [];
    const group = state as Open;
    return [
      {
        type: 'group.regressed',
        data: { groupId: group.groupId, project: group.project, from: 'RESOLVED', to: 'REGRESSED', by: 'leon', eventId: c.eventId, ...(c.release ? { release: c.release } : {}), at: c.now },
      },
    ];
  },
  'start-analysis': (c, s) => [{ type: 'group.analysing-started', data: move(s, 'start-analysis', c) }],
  'record-triage': (c, s) => [
    {
      type: 'group.triaged',
      data: {
        ...move(s, 'record-triage', c),
        severity: c.severity,
        domain: c.domain,
        persona: c.persona,
        autoFixable: c.autoFixable,
        hypothesis: c.hypothesis,
        ...optional({ complex: c.complex, approach: c.approach, ruleReasons: c.ruleReasons, source: c.source, models: c.models, simulated: c.simulated }),
      },
    },
  ],
  'propose-fix': (c, s) => [
    {
      type: 'group.fix-proposed',
      data: { ...move(s, 'propose-fix', c), ...optional({ approvalId: c.approvalId, approach: c.approach, approvalSkipped: c.approvalSkipped }) },
    },
  ],
  'start-fix': (c, s) => [{ type: 'group.fix-started', data: { ...move(s, 'start-fix', c), runId: c.runId, ...optional({ team: c.team }) } }],
  'commit-fix': (c, s) => [
    { type: 'group.fix-committed', data: { ...move(s, 'commit-fix', c), commit: c.commit, ...optional({ release: c.release, runId: c.runId, regressionTest: c.regressionTest }) } },
  ],
  verify: (c, s) => [{ type: 'group.verified', data: { ...move(s, 'verify', c), ...optional({ windowSeconds: c.windowSeconds }) } }],
  resolve: (c, s) => {
    const data = move(s, c.manual ? 'resolve-manually' : 'resolve', c);
    const fixRelease = (s as Open).fixRelease;
    return [{ type: 'group.resolved', data: { ...data, manual: c.manual, ...(fixRelease ? { fixRelease } : {}), releasesBefore: c.releases.slice(0, 100) } }];
  },
  dismiss: (c, s) => [{ type: 'group.dismissed', data: move(s, 'dismiss', c) }],
  escalate: (c, s) => [{ type: 'group.escalated', data: { ...move(s, 'escalate', c), ...optional({ level: c.level }) } }],
  reopen: (c, s) => [{ type: 'group.reopened', data: move(s, 'reopen', c) }],
});

const moved = (state: Lifecycle, event: { data: { to: GroupState } }): Lifecycle => ({ ...(state as Open), status: event.data.to });

const evolve = evolveByType<Lifecycle, GroupEvent>({
  'group.opened': (_s, e) => ({ status: 'NEW', groupId: e.data.groupId, project: e.data.project, openedAt: e.data.at, releasesBefore: [] }),
  'group.spiked': (s, e) => ({ ...(s as Open), lastSpikeAt: e.data.at }),
  'group.analysing-started': moved,
  'group.triaged': (s, e) => ({ ...(s as Open), severity: e.data.severity }),
  'group.fix-proposed': moved,
  'group.fix-started': moved,
  'group.fix-committed': (s, e) => ({ ...(s as Open), status: e.data.to, fixRelease: e.data.release }),
  'group.verified': moved,
  'group.resolved': (s, e) => ({ ...(s as Open), status: e.data.to, releasesBefore: e.data.releasesBefore }),
  'group.dismissed': moved,
  'group.escalated': moved,
  'group.reopened': moved,
  'group.regressed': moved,
});

export const groupDecider: Decider<GroupCommand, Lifecycle, GroupEvent> = { decide, evolve, initialState: () => ({ status: 'none' }) };
