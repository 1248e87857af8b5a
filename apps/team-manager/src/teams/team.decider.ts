import { ErrorCodes, HeadspaceError, type EventData, type teamCreated } from '@headspace/contracts';
import type { Decider } from '@headspace/event-store';

export type TeamEvent = { type: 'team.created'; data: EventData<typeof teamCreated> };

export type TeamState = { exists: false } | { exists: true; teamId: string; name: string };

export interface CreateTeam {
  type: 'create-team';
  teamId: string;
  name: string;
  description?: string;
  leadAgentType: string;
  metadata: Record<string, string>;
  now: string;
}

export type TeamCommand = CreateTeam;

export const teamDecider: Decider<TeamCommand, TeamState, TeamEvent> = {
  initialState: () => ({ exists: false }),

  decide(command, state) {
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
          createdAt: command.now,
        },
      },
    ];
  },

  evolve(state, event) {
    switch (event.type) {
      case 'team.created':
        return { exists: true, teamId: event.data.teamId, name: event.data.name };
      default:
        return state;
    }
  },
};
