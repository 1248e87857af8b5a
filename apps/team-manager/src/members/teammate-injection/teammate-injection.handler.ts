import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCodes, getTeammateInjection, HeadspaceError, TEAM_LEAD, type RosterMember } from '@headspace/contracts';
import type { z } from 'zod';
import { RosterReader, type RosterTeam } from '../roster.reader';

/** `get-teammate-injection` (query): the team state a teammate is told when its session starts. */
@Controller()
export class TeammateInjectionHandler {
  constructor(private readonly roster: RosterReader) {}

  @MessagePattern(getTeammateInjection)
  async handle(@Payload() request: z.output<typeof getTeammateInjection.request>) {
    const team = await this.roster.team(request.team);
    const members = await this.roster.members(request.team);
    const you = members.find((m) => m.name === request.member && m.role === 'teammate');
    if (!you) throw new HeadspaceError(ErrorCodes.teammateNotFound, `Team "${team.name}" has no teammate "${request.member}"`, { field: 'member' });
    return {
      team: { name: team.name, description: team.description, status: team.status },
      lead: { name: TEAM_LEAD, agentType: team.leadAgentType },
      you,
      members: members.map((m) => ({ name: m.name, role: m.role, agentType: m.agentType, status: m.status })),
      injection: renderTeamState(team, you, members),
    };
  }
}

/** The `<team-state>` block prepended to a teammate's first turn. */
export function renderTeamState(team: RosterTeam, you: RosterMember, members: RosterMember[]): string {
  const lines = members.map((m) => `- ${m.name} (${m.role}, ${m.agentType}, ${m.status})${m.name === you.name ? ' ← you' : ''}`);
  return [
    `<team-state team="${team.name}" status="${team.status}">`,
    ...(team.description ? [`Purpose: ${team.description}`] : []),
    `Lead: ${TEAM_LEAD} (${team.leadAgentType})`,
    'Members:',
    ...lines,
    `Your role: ${you.agentType}, depth ${you.depth}, spawned by ${you.parent ?? TEAM_LEAD}`,
    'Your task:',
    you.task ?? '',
    '</team-state>',
  ].join('\n');
}
