import { DEFAULT_SANDBOX, ErrorCodes, HeadspaceError, TEAM_LEAD, TEAMMATE_LANE, teammateSessionKey, type SandboxSettings } from '@headspace/contracts';
import { requireActiveTeam, requireLive, requireMember, requireTeam } from './team.guards';
import { withShutdownOutcome } from './team-shutdown.decisions';
import type { TeamEvent, TeamState } from './team.state';

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

/** A team name is taken once; its sandbox is the defaults overridden by the request. */
export function createTeam(command: CreateTeam, state: TeamState): TeamEvent[] {
  if (state.exists) throw new HeadspaceError(ErrorCodes.teamAlreadyExists, `Team "${command.name}" already exists`, { field: 'name' });
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

/**
 * An active team takes a new, unique name (never the lead's) under a live parent, one level deeper
 * than it and within the depth limit; model and sandbox are inherited from the parent, else the team.
 */
export function spawnTeammate(command: SpawnTeammate, state: TeamState): TeamEvent[] {
  const team = requireActiveTeam(state, command.team);
  if (command.name === TEAM_LEAD || team.members[command.name]) {
    throw new HeadspaceError(ErrorCodes.teammateAlreadyExists, `Team "${team.name}" already has a member "${command.name}"`, { field: 'name' });
  }
  const parent = command.parent === undefined || command.parent === TEAM_LEAD ? undefined : requireLive(requireMember(team, command.parent, 'parent'), 'parent');
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

/**
 * Only a live member goes idle. Going idle with a shutdown_request unanswered counts as approving it:
 * its work is saved and it has nothing left to do.
 */
export function reportTeammateIdle(command: ReportTeammateIdle, state: TeamState): TeamEvent[] {
  const team = requireTeam(state, command.team);
  const member = requireLive(requireMember(team, command.member), 'member');
  const idle: TeamEvent = { type: 'teammate.idle', data: { name: member.name, ...(command.summary === undefined ? {} : { summary: command.summary }), idleAt: command.now } };
  const pending = team.status === 'shutting-down' ? team.shutdown?.requests.find((r) => r.member === member.name && !r.answer) : undefined;
  if (!team.shutdown || !pending) return [idle];
  return withShutdownOutcome(
    team,
    [
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
    ],
    command.now,
  );
}

/** Only a live member announces its completion, to the lead. */
export function announceTeammateCompletion(command: AnnounceTeammateCompletion, state: TeamState): TeamEvent[] {
  const team = requireTeam(state, command.team);
  const member = requireLive(requireMember(team, command.member), 'member');
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
