import {
  DEFAULT_SANDBOX,
  ErrorCodes,
  HeadspaceError,
  TEAM_LEAD,
  TEAMMATE_LANE,
  teammateSessionKey,
  type EventData,
  type SandboxSettings,
  type TeamStatus,
  type teamCreated,
  type teammateAnnounced,
  type teammateIdle,
  type teammateSpawned,
  type teammateTerminated,
  type teamShutdownAborted,
  type teamShutdownCompleted,
  type teamShutdownRequested,
  type teamShutdownResponded,
} from '@headspace/contracts';
import type { Decider } from '@headspace/event-store';

/**
 * The team aggregate (stream `team-<name>`): status, members and the shutdown protocol. Everything
 * that needs read-your-writes (duplicate names, depth limits, who still has to answer a shutdown)
 * is decided here against the stream, never against the roster projection.
 */
export type TeamEvent =
  | { type: 'team.created'; data: EventData<typeof teamCreated> }
  | { type: 'team.shutdown-requested'; data: EventData<typeof teamShutdownRequested> }
  | { type: 'team.shutdown-responded'; data: EventData<typeof teamShutdownResponded> }
  | { type: 'team.shutdown-aborted'; data: EventData<typeof teamShutdownAborted> }
  | { type: 'team.shutdown-completed'; data: EventData<typeof teamShutdownCompleted> }
  | { type: 'teammate.spawned'; data: EventData<typeof teammateSpawned> }
  | { type: 'teammate.idle'; data: EventData<typeof teammateIdle> }
  | { type: 'teammate.announced'; data: EventData<typeof teammateAnnounced> }
  | { type: 'teammate.terminated'; data: EventData<typeof teammateTerminated> };

export interface MemberState {
  name: string;
  sessionKey: string;
  agentType: string;
  model?: string;
  sandbox: SandboxSettings;
  depth: number;
  status: 'active' | 'idle' | 'terminated';
}

export interface ShutdownState {
  shutdownId: string;
  deadline: string;
  requests: Array<{ member: string; requestId: string; answer?: { approve: boolean; reason?: string } }>;
}

export type TeamState =
  | { exists: false }
  | {
      exists: true;
      teamId: string;
      name: string;
      status: TeamStatus;
      leadAgentType: string;
      sandbox: SandboxSettings;
      defaultModel?: string;
      maxSpawnDepth?: number;
      members: Record<string, MemberState>;
      shutdown?: ShutdownState;
    };
type Team = Extract<TeamState, { exists: true }>;

export interface CreateTeam {
  type: 'create-team';
  teamId: string;
  name: string;
  description?: string;
  leadAgentType: string;
  metadata: Record<string, string>;
  sandbox?: Partial<SandboxSettings>;
  defaultModel?: string;
  maxSpawnDepth?: number;
  now: string;
}

export interface SpawnTeammate {
  type: 'spawn-teammate';
  team: string;
  memberId: string;
  /** The uuid of the session key. */
  sessionUuid: string;
  name: string;
  agentId: string;
  agentType?: string;
  model?: string;
  sandbox?: Partial<SandboxSettings>;
  task: string;
  parent?: string;
  /** The service's configured limit, used when the team sets none. */
  defaultMaxDepth: number;
  now: string;
}

export interface ReportTeammateIdle {
  type: 'report-teammate-idle';
  team: string;
  member: string;
  summary?: string;
  now: string;
}

export interface AnnounceTeammateCompletion {
  type: 'announce-teammate-completion';
  team: string;
  member: string;
  announcementId: string;
  outcome: 'completed' | 'failed';
  summary: string;
  result?: string;
  now: string;
}

export interface RequestShutdown {
  type: 'request-shutdown';
  team: string;
  shutdownId: string;
  /** Deterministic ids: a retried command asks with the same request_ids. */
  requestIdFor: (member: string) => string;
  requestedBy: string;
  reason?: string;
  timeoutMs: number;
  now: string;
}

export interface RespondShutdown {
  type: 'respond-shutdown';
  team: string;
  member: string;
  requestId: string;
  approve: boolean;
  reason?: string;
  now: string;
}

export interface CompleteShutdown {
  type: 'complete-shutdown';
  team: string;
  now: string;
}

export interface ForceShutdown {
  type: 'force-shutdown';
  team: string;
  reason?: string;
  /** Set by the timeout sweeper: only this shutdown may be timed out (a later one has its own deadline). */
  timedOutShutdownId?: string;
  now: string;
}

export type TeamCommand =
  | CreateTeam
  | SpawnTeammate
  | ReportTeammateIdle
  | AnnounceTeammateCompletion
  | RequestShutdown
  | RespondShutdown
  | CompleteShutdown
  | ForceShutdown;

const live = (m: MemberState) => m.status !== 'terminated';

function requireTeam(state: TeamState, team: string): Team {
  if (!state.exists) throw new HeadspaceError(ErrorCodes.teamNotFound, `Team "${team}" does not exist`, { field: 'team' });
  return state;
}

function requireActiveTeam(state: TeamState, team: string): Team {
  const t = requireTeam(state, team);
  if (t.status !== 'active') throw new HeadspaceError(ErrorCodes.teamNotActive, `Team "${team}" is ${t.status}`, { field: 'team', details: { status: t.status } });
  return t;
}

function requireMember(team: Team, member: string, field = 'member'): MemberState {
  const m = team.members[member];
  if (!m) throw new HeadspaceError(ErrorCodes.teammateNotFound, `Team "${team.name}" has no teammate "${member}"`, { field });
  return m;
}

export function initialPrompt(p: { team: string; name: string; agentType: string; parent: string; task: string }): string {
  return [
    `You are "${p.name}", a ${p.agentType} teammate in team "${p.team}", spawned by "${p.parent}".`,
    `The team lead is "${TEAM_LEAD}". Read your mailbox for messages, coordinate with your teammates through it,`,
    `and when your task is done announce completion to the lead. Approve a shutdown_request once your work is saved.`,
    '',
    'Your task:',
    p.task,
  ].join('\n');
}

/** The answer a member's response completes: all approved → shutdown completed; any rejected → aborted. */
function afterAnswer(team: Team, shutdown: ShutdownState, now: string): TeamEvent[] {
  if (shutdown.requests.some((r) => !r.answer)) return [];
  const rejections = shutdown.requests
    .filter((r) => r.answer && !r.answer.approve)
    .map((r) => ({ member: r.member, reason: r.answer?.reason ?? '' }));
  if (rejections.length) return [{ type: 'team.shutdown-aborted', data: { shutdownId: shutdown.shutdownId, rejections, abortedAt: now } }];
  return [
    ...terminations(team, 'team-shutdown', now),
    { type: 'team.shutdown-completed', data: { shutdownId: shutdown.shutdownId, forced: false, timedOut: false, unanswered: [], completedAt: now } },
  ];
}

function terminations(team: Team, reason: EventData<typeof teammateTerminated>['reason'], now: string, except: string[] = []): TeamEvent[] {
  return Object.values(team.members)
    .filter((m) => live(m) && !except.includes(m.name))
    .map((m) => ({ type: 'teammate.terminated', data: { name: m.name, sessionKey: m.sessionKey, reason, terminatedAt: now } }));
}

/** Applies events to state inside a decision, so one command can reason about its own earlier events. */
function decideWith(state: TeamState, events: TeamEvent[]): TeamState {
  return events.reduce((s, e) => teamDecider.evolve(s, e), state);
}

export const teamDecider: Decider<TeamCommand, TeamState, TeamEvent> = {
  initialState: () => ({ exists: false }),

  decide(command, state) {
    switch (command.type) {
      case 'create-team': {
        if (state.exists) {
          throw new HeadspaceError(ErrorCodes.teamAlreadyExists, `Team "${command.name}" already exists`, { field: 'name' });
        }
        return [
          {
            type: 'team.created',
            data: {
              teamId: command.teamId,
              name: command.name,
              ...(command.description === undefined ? {} : { description: command.description }),
              leadAgentType: command.leadAgentType,
              metadata: command.metadata,
              ...(command.sandbox === undefined ? {} : { sandbox: { ...DEFAULT_SANDBOX, ...command.sandbox } }),
              ...(command.defaultModel === undefined ? {} : { defaultModel: command.defaultModel }),
              ...(command.maxSpawnDepth === undefined ? {} : { maxSpawnDepth: command.maxSpawnDepth }),
              createdAt: command.now,
            },
          },
        ];
      }

      case 'spawn-teammate': {
        const team = requireActiveTeam(state, command.team);
        if (command.name === TEAM_LEAD || team.members[command.name]) {
          throw new HeadspaceError(ErrorCodes.teammateAlreadyExists, `Team "${team.name}" already has a member "${command.name}"`, { field: 'name' });
        }
        const parent = command.parent === undefined || command.parent === TEAM_LEAD ? undefined : requireMember(team, command.parent, 'parent');
        if (parent && !live(parent)) {
          throw new HeadspaceError(ErrorCodes.teammateNotActive, `Teammate "${parent.name}" has terminated`, { field: 'parent' });
        }
        const maxDepth = team.maxSpawnDepth ?? command.defaultMaxDepth;
        const depth = (parent?.depth ?? 0) + 1;
        if (depth > maxDepth) {
          throw new HeadspaceError(ErrorCodes.teammateDepthLimit, `Spawning "${command.name}" would reach depth ${depth}; the limit is ${maxDepth}`, {
            field: 'parent',
            details: { depth, maxDepth },
          });
        }
        const agentType = command.agentType ?? 'general-purpose';
        const model = command.model ?? parent?.model ?? team.defaultModel;
        const parentName = parent?.name ?? TEAM_LEAD;
        return [
          {
            type: 'teammate.spawned',
            data: {
              memberId: command.memberId,
              name: command.name,
              agentId: command.agentId,
              sessionKey: teammateSessionKey(command.agentId, command.sessionUuid),
              lane: TEAMMATE_LANE,
              mode: 'session',
              agentType,
              ...(model === undefined ? {} : { model }),
              sandbox: { ...(parent?.sandbox ?? team.sandbox), ...command.sandbox },
              depth,
              maxDepth,
              parent: parentName,
              task: command.task,
              initialPrompt: initialPrompt({ team: team.name, name: command.name, agentType, parent: parentName, task: command.task }),
              spawnedAt: command.now,
            },
          },
        ];
      }

      case 'report-teammate-idle': {
        const team = requireTeam(state, command.team);
        const member = requireMember(team, command.member);
        if (!live(member)) throw new HeadspaceError(ErrorCodes.teammateNotActive, `Teammate "${member.name}" has terminated`, { field: 'member' });
        const idle: TeamEvent = {
          type: 'teammate.idle',
          data: { name: member.name, ...(command.summary === undefined ? {} : { summary: command.summary }), idleAt: command.now },
        };
        const pending = team.status === 'shutting-down' ? team.shutdown?.requests.find((r) => r.member === member.name && !r.answer) : undefined;
        if (!team.shutdown || !pending) return [idle];
        // Going idle with a shutdown_request unanswered counts as approving it: its work is saved and it has nothing left to do.
        const answered: TeamEvent[] = [
          idle,
          {
            type: 'team.shutdown-responded',
            data: {
              shutdownId: team.shutdown.shutdownId,
              requestId: pending.requestId,
              member: member.name,
              approve: true,
              reason: 'went idle during shutdown',
              implicit: true,
              to: TEAM_LEAD,
              respondedAt: command.now,
            },
          },
          { type: 'teammate.terminated', data: { name: member.name, sessionKey: member.sessionKey, reason: 'went-idle-during-shutdown', terminatedAt: command.now } },
        ];
        const after = decideWith(team, answered) as Team;
        return [...answered, ...afterAnswer(after, after.shutdown as ShutdownState, command.now)];
      }

      case 'announce-teammate-completion': {
        const team = requireTeam(state, command.team);
        const member = requireMember(team, command.member);
        if (!live(member)) throw new HeadspaceError(ErrorCodes.teammateNotActive, `Teammate "${member.name}" has terminated`, { field: 'member' });
        return [
          {
            type: 'teammate.announced',
            data: {
              announcementId: command.announcementId,
              name: member.name,
              sessionKey: member.sessionKey,
              to: TEAM_LEAD,
              outcome: command.outcome,
              summary: command.summary,
              ...(command.result === undefined ? {} : { result: command.result }),
              announcedAt: command.now,
            },
          },
        ];
      }

      case 'request-shutdown': {
        const team = requireActiveTeam(state, command.team);
        const requests = Object.values(team.members)
          .filter(live)
          .map((m) => ({ member: m.name, requestId: command.requestIdFor(m.name) }));
        const deadline = new Date(Date.parse(command.now) + command.timeoutMs).toISOString();
        const requested: TeamEvent = {
          type: 'team.shutdown-requested',
          data: {
            shutdownId: command.shutdownId,
            requestedBy: command.requestedBy,
            ...(command.reason === undefined ? {} : { reason: command.reason }),
            requests,
            requestedAt: command.now,
            deadline,
          },
        };
        if (requests.length) return [requested];
        // Nobody to ask: the lead completes the shutdown at once.
        return [
          requested,
          { type: 'team.shutdown-completed', data: { shutdownId: command.shutdownId, forced: false, timedOut: false, unanswered: [], completedAt: command.now } },
        ];
      }

      case 'respond-shutdown': {
        const team = requireTeam(state, command.team);
        const member = requireMember(team, command.member);
        const request = team.status === 'shutting-down' ? team.shutdown?.requests.find((r) => r.requestId === command.requestId) : undefined;
        if (!team.shutdown || !request) {
          throw new HeadspaceError(ErrorCodes.teamUnknownShutdownRequest, `No pending shutdown_request "${command.requestId}" in team "${team.name}"`, {
            field: 'requestId',
          });
        }
        if (request.member !== member.name) {
          throw new HeadspaceError(ErrorCodes.teamUnknownShutdownRequest, `shutdown_request "${command.requestId}" was not sent to "${member.name}"`, {
            field: 'requestId',
          });
        }
        if (request.answer) {
          throw new HeadspaceError(ErrorCodes.teamShutdownAlreadyAnswered, `"${member.name}" already answered shutdown_request "${command.requestId}"`, {
            field: 'requestId',
          });
        }
        const answered: TeamEvent[] = [
          {
            type: 'team.shutdown-responded',
            data: {
              shutdownId: team.shutdown.shutdownId,
              requestId: request.requestId,
              member: member.name,
              approve: command.approve,
              ...(command.reason === undefined ? {} : { reason: command.reason }),
              implicit: false,
              to: TEAM_LEAD,
              respondedAt: command.now,
            },
          },
        ];
        if (command.approve && live(member)) {
          answered.push({ type: 'teammate.terminated', data: { name: member.name, sessionKey: member.sessionKey, reason: 'shutdown-approved', terminatedAt: command.now } });
        }
        const after = decideWith(team, answered) as Team;
        return [...answered, ...afterAnswer(after, after.shutdown as ShutdownState, command.now)];
      }

      case 'complete-shutdown': {
        const team = requireTeam(state, command.team);
        if (team.status === 'shutdown') throw new HeadspaceError(ErrorCodes.teamNotActive, `Team "${team.name}" is already shut down`, { field: 'team' });
        const active = Object.values(team.members).filter(live).map((m) => m.name);
        if (active.length) {
          throw new HeadspaceError(ErrorCodes.teamMembersActive, `Team "${team.name}" still has active members: ${active.join(', ')}`, {
            field: 'team',
            details: { members: active },
          });
        }
        return [
          {
            type: 'team.shutdown-completed',
            data: { ...(team.shutdown && team.status === 'shutting-down' ? { shutdownId: team.shutdown.shutdownId } : {}), forced: false, timedOut: false, unanswered: [], completedAt: command.now },
          },
        ];
      }

      case 'force-shutdown': {
        const team = requireTeam(state, command.team);
        if (team.status === 'shutdown') throw new HeadspaceError(ErrorCodes.teamNotActive, `Team "${team.name}" is already shut down`, { field: 'team' });
        const pending = team.status === 'shutting-down' ? team.shutdown : undefined;
        if (command.timedOutShutdownId !== undefined && pending?.shutdownId !== command.timedOutShutdownId) {
          throw new HeadspaceError(ErrorCodes.teamNotActive, `Shutdown "${command.timedOutShutdownId}" of team "${team.name}" is no longer pending`, { field: 'team' });
        }
        const unanswered = pending
          ? pending.requests.filter((r) => !r.answer && live(team.members[r.member])).map((r) => r.member)
          : Object.values(team.members).filter(live).map((m) => m.name);
        const timedOut = command.timedOutShutdownId !== undefined;
        return [
          ...terminations(team, timedOut ? 'shutdown-timeout' : 'forced', command.now),
          {
            type: 'team.shutdown-completed',
            data: {
              ...(pending ? { shutdownId: pending.shutdownId } : {}),
              forced: true,
              timedOut,
              unanswered,
              ...(command.reason === undefined ? {} : { reason: command.reason }),
              completedAt: command.now,
            },
          },
        ];
      }
    }
  },

  evolve(state, event) {
    if (event.type === 'team.created') {
      return {
        exists: true,
        teamId: event.data.teamId,
        name: event.data.name,
        status: 'active',
        leadAgentType: event.data.leadAgentType,
        sandbox: event.data.sandbox ?? DEFAULT_SANDBOX,
        ...(event.data.defaultModel === undefined ? {} : { defaultModel: event.data.defaultModel }),
        ...(event.data.maxSpawnDepth === undefined ? {} : { maxSpawnDepth: event.data.maxSpawnDepth }),
        members: {},
      };
    }
    if (!state.exists) return state;
    const withMember = (name: string, change: Partial<MemberState>): TeamState =>
      state.members[name] ? { ...state, members: { ...state.members, [name]: { ...state.members[name], ...change } } } : state;
    switch (event.type) {
      case 'teammate.spawned': {
        const d = event.data;
        const member: MemberState = {
          name: d.name,
          sessionKey: d.sessionKey,
          agentType: d.agentType,
          ...(d.model === undefined ? {} : { model: d.model }),
          sandbox: d.sandbox,
          depth: d.depth,
          status: 'active',
        };
        return { ...state, members: { ...state.members, [d.name]: member } };
      }
      case 'teammate.idle':
        return state.members[event.data.name]?.status === 'terminated' ? state : withMember(event.data.name, { status: 'idle' });
      case 'teammate.announced':
        return state;
      case 'teammate.terminated':
        return withMember(event.data.name, { status: 'terminated' });
      case 'team.shutdown-requested':
        return {
          ...state,
          status: 'shutting-down',
          shutdown: { shutdownId: event.data.shutdownId, deadline: event.data.deadline, requests: event.data.requests.map((r) => ({ ...r })) },
        };
      case 'team.shutdown-responded': {
        if (!state.shutdown) return state;
        const { requestId, approve, reason } = event.data;
        const requests = state.shutdown.requests.map((r) =>
          r.requestId === requestId ? { ...r, answer: { approve, ...(reason === undefined ? {} : { reason }) } } : r,
        );
        return { ...state, shutdown: { ...state.shutdown, requests } };
      }
      case 'team.shutdown-aborted':
        return { ...state, status: 'active', shutdown: undefined };
      case 'team.shutdown-completed':
        return { ...state, status: 'shutdown' };
      default:
        return state;
    }
  },
};
