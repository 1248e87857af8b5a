import { describe, it } from 'vitest';
import { DeciderSpec } from '@headspace/event-store';
import { teamDecider, type CreateTeam } from './team.decider';

const create: CreateTeam = {
  type: 'create-team',
  teamId: 't-1',
  name: 'alpha',
  leadAgentType: 'architect',
  metadata: { project: 'demo' },
  now: '2026-11-22T10:00:00.000Z',
};

describe('team decider', () => {
  it('Create a new team successfully', () => {
    DeciderSpec.for(teamDecider).given([]).when(create).then([
      {
        type: 'team.created',
        data: { teamId: 't-1', name: 'alpha', leadAgentType: 'architect', metadata: { project: 'demo' }, createdAt: create.now },
      },
    ]);
  });

  it('Attempt to create duplicate team', () => {
    DeciderSpec.for(teamDecider)
      .given([{ type: 'team.created', data: { teamId: 't-0', name: 'alpha', leadAgentType: 'x', metadata: {}, createdAt: create.now } }])
      .when(create)
      .thenThrows((error) => (error as { code?: string }).code === 'TEAM.ALREADY_EXISTS');
  });
});
