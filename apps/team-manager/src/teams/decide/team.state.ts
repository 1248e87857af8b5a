import {
  DEFAULT_SANDBOX,
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
import { evolveByType } from '@headspace/event-store';

/** The team stream's events (`team-<name>`): its status, its members and the shutdown protocol. */
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
export type Team = Extract<TeamState, { exists: true }>;

export const live = (m: MemberState) => m.status !== 'terminated';

const withMember = (team: Team, name: string, change: Partial<MemberState>): Team =>
  team.members[name] ? { ...team, members: { ...team.members, [name]: { ...team.members[name], ...change } } } : team;

/** Events after the creation change an existing team only; a change naming an unknown member changes nothing. */
const evolveExisting = evolveByType<Team, TeamEvent>({
  'teammate.spawned': (team, { data: d }) => {
    const member: MemberState = {
      name: d.name,
      sessionKey: d.sessionKey,
      agentType: d.agentType,
      ...(d.model === undefined ? {} : { model: d.model }),
      sandbox: d.sandbox,
      depth: d.depth,
      status: 'active',
    };
    return { ...team, members: { ...team.members, [d.name]: member } };
  },
  // A terminated member stays terminated: a late idle report does not revive it.
  'teammate.idle': (team, { data }) => (team.members[data.name]?.status === 'terminated' ? team : withMember(team, data.name, { status: 'idle' })),
  'teammate.terminated': (team, { data }) => withMember(team, data.name, { status: 'terminated' }),
  'team.shutdown-requested': (team, { data }) => ({
    ...team,
    status: 'shutting-down',
    shutdown: { shutdownId: data.shutdownId, deadline: data.deadline, requests: data.requests.map((r) => ({ ...r })) },
  }),
  'team.shutdown-responded': (team, { data: { requestId, approve, reason } }) => {
    if (!team.shutdown) return team;
    const requests = team.shutdown.requests.map((r) => (r.requestId === requestId ? { ...r, answer: { approve, ...(reason === undefined ? {} : { reason }) } } : r));
    return { ...team, shutdown: { ...team.shutdown, requests } };
  },
  'team.shutdown-aborted': (team) => ({ ...team, status: 'active', shutdown: undefined }),
  'team.shutdown-completed': (team) => ({ ...team, status: 'shutdown' }),
});

export function evolveTeam(state: TeamState, event: TeamEvent): TeamState {
  if (event.type === 'team.created') {
    const d = event.data;
    return {
      exists: true,
      teamId: d.teamId,
      name: d.name,
      status: 'active',
      leadAgentType: d.leadAgentType,
      sandbox: d.sandbox ?? DEFAULT_SANDBOX,
      ...(d.defaultModel === undefined ? {} : { defaultModel: d.defaultModel }),
      ...(d.maxSpawnDepth === undefined ? {} : { maxSpawnDepth: d.maxSpawnDepth }),
      members: {},
    };
  }
  return state.exists ? evolveExisting(state, event) : state;
}
