import { describe, expect, it } from 'vitest';
import { DeciderSpec } from '@headspace/event-store';
import { DEFAULT_SANDBOX, TEAMMATE_SESSION_KEY } from '@headspace/contracts';
import { initialPrompt, teamDecider, type SpawnTeammate, type TeamEvent } from '../teams/team.decider';

const now = '2026-11-22T10:00:00.000Z';
const uuid = '0b6f3c1e-8d2a-5f4b-9c3d-1e2f3a4b5c6d';
const created: TeamEvent = {
  type: 'team.created',
  data: { teamId: 't-0', name: 'research', leadAgentType: 'architect', metadata: {}, sandbox: { mode: 'all', workspaceAccess: 'ro', network: false }, defaultModel: 'claude-sonnet', createdAt: now },
};
const spawn: SpawnTeammate = {
  type: 'spawn-teammate',
  team: 'research',
  memberId: 'm-1',
  sessionUuid: uuid,
  name: 'researcher',
  agentId: 'default',
  task: 'find the bug',
  defaultMaxDepth: 3,
  now,
};
const code = (expected: string) => (error: unknown) => (error as { code?: string }).code === expected;
const fold = (events: TeamEvent[]) => events.reduce(teamDecider.evolve, teamDecider.initialState());
const spawnedFrom = (command: SpawnTeammate, history: TeamEvent[]) => {
  const [event] = teamDecider.decide(command, fold(history));
  if (event.type !== 'teammate.spawned') throw new Error(event.type);
  return event;
};

describe('teammate decisions', () => {
  it('Teammate spawns via spawnSubagentDirect', () => {
    DeciderSpec.for(teamDecider).given([created]).when(spawn).then([
      {
        type: 'teammate.spawned',
        data: {
          memberId: 'm-1',
          name: 'researcher',
          agentId: 'default',
          sessionKey: `agent:default:teammate:${uuid}`,
          lane: 'teammate',
          mode: 'session',
          agentType: 'general-purpose',
          model: 'claude-sonnet',
          sandbox: { mode: 'all', workspaceAccess: 'ro', network: false },
          depth: 1,
          maxDepth: 3,
          parent: 'team-lead',
          task: 'find the bug',
          initialPrompt: initialPrompt({ team: 'research', name: 'researcher', agentType: 'general-purpose', parent: 'team-lead', task: 'find the bug' }),
          spawnedAt: now,
        },
      },
    ]);
  });

  it('session key, lane, overrides and sandbox inheritance', () => {
    const e = spawnedFrom({ ...spawn, agentId: 'coder', model: 'claude-opus', agentType: 'reviewer', sandbox: { network: true } }, [created]);
    expect(e.data.sessionKey).toMatch(TEAMMATE_SESSION_KEY);
    expect(e.data.sessionKey.startsWith('agent:coder:teammate:')).toBe(true);
    expect(e.data).toMatchObject({ lane: 'teammate', model: 'claude-opus', agentType: 'reviewer', sandbox: { mode: 'all', workspaceAccess: 'ro', network: true } });
  });

  it('depth: sub-agents are one deeper than their parent, refused past the limit', () => {
    const first = spawnedFrom(spawn, [created]);
    const second = spawnedFrom({ ...spawn, name: 'sub', parent: 'researcher' }, [created, first]);
    expect(second.data.depth).toBe(2);
    expect(second.data.sandbox).toEqual(first.data.sandbox);
    const third = spawnedFrom({ ...spawn, name: 'subsub', parent: 'sub' }, [created, first, second]);
    expect(third.data.depth).toBe(3);
    DeciderSpec.for(teamDecider).given([created, first, second, third]).when({ ...spawn, name: 'too-deep', parent: 'subsub' }).thenThrows(code('TEAMMATE.DEPTH_LIMIT'));
  });

  it('a team without sandbox settings gives the defaults', () => {
    const plain: TeamEvent = { type: 'team.created', data: { teamId: 't', name: 'research', leadAgentType: 'x', metadata: {}, createdAt: now } };
    expect(spawnedFrom(spawn, [plain]).data.sandbox).toEqual(DEFAULT_SANDBOX);
  });

  it('Teammate spawn fails with invalid team', () => {
    DeciderSpec.for(teamDecider).given([]).when(spawn).thenThrows(code('TEAM.NOT_FOUND'));
  });

  it('duplicate names and spawns into a shutting-down team are refused', () => {
    const first = spawnedFrom(spawn, [created]);
    DeciderSpec.for(teamDecider).given([created, first]).when(spawn).thenThrows(code('TEAMMATE.ALREADY_EXISTS'));
    const shutting: TeamEvent = { type: 'team.shutdown-requested', data: { shutdownId: 's', requestedBy: 'team-lead', requests: [], requestedAt: now, deadline: now } };
    DeciderSpec.for(teamDecider).given([created, shutting]).when(spawn).thenThrows(code('TEAM.NOT_ACTIVE'));
  });

  it('a sub-agent of a terminated parent is refused naming the parent', () => {
    const first = spawnedFrom(spawn, [created]);
    const terminated: TeamEvent = { type: 'teammate.terminated', data: { name: 'researcher', sessionKey: first.data.sessionKey, reason: 'forced', terminatedAt: now } };
    DeciderSpec.for(teamDecider)
      .given([created, first, terminated])
      .when({ ...spawn, name: 'sub', parent: 'researcher' })
      .thenThrows((e) => code('TEAMMATE.NOT_ACTIVE')(e) && (e as { field?: string }).field === 'parent');
    DeciderSpec.for(teamDecider).given([created]).when({ ...spawn, name: 'sub', parent: 'ghost' }).thenThrows(code('TEAMMATE.NOT_FOUND'));
  });

  it('Teammate announce flow on completion', () => {
    const first = spawnedFrom(spawn, [created]);
    DeciderSpec.for(teamDecider)
      .given([created, first])
      .when({ type: 'announce-teammate-completion', team: 'research', member: 'researcher', announcementId: 'a-1', outcome: 'completed', summary: 'found it', now })
      .then([
        {
          type: 'teammate.announced',
          data: { announcementId: 'a-1', name: 'researcher', sessionKey: first.data.sessionKey, to: 'team-lead', outcome: 'completed', summary: 'found it', announcedAt: now },
        },
      ]);
  });
});
