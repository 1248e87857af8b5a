import { Injectable } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, type MemberStatus, type RosterMember } from '@headspace/contracts';
import { ReadModel } from '@headspace/platform';
import { AnnouncementRow, RosterMemberRow, RosterTeamRow } from '../teams/roster/team-roster.entity';

export interface RosterTeam {
  name: string;
  description: string | null;
  status: string;
  leadAgentType: string;
}

/** Reads of the team roster projection for the members' queries. */
@Injectable()
export class RosterReader {
  constructor(private readonly reads: ReadModel) {}

  async team(name: string, field = 'team'): Promise<RosterTeam> {
    const row = await this.reads.one(RosterTeamRow, { teamName: name });
    if (!row) throw new HeadspaceError(ErrorCodes.teamNotFound, `Team "${name}" does not exist`, { field });
    return { name: row.teamName, description: row.description ?? null, status: row.status, leadAgentType: row.leadAgentType };
  }

  async members(team: string, status?: MemberStatus): Promise<RosterMember[]> {
    const rows = await this.reads.rows(RosterMemberRow, { teamName: team, ...(status ? { status } : {}) }, { orderBy: [{ position: 'asc' }, { memberName: 'asc' }] });
    return rows.map((r) => ({
      name: r.memberName,
      role: r.role,
      memberId: r.memberId ?? null,
      agentId: r.agentId ?? null,
      agentType: r.agentType,
      model: r.model ?? null,
      status: r.status,
      sessionKey: r.sessionKey ?? null,
      lane: r.lane ?? null,
      depth: r.depth,
      parent: r.parent ?? null,
      task: r.task ?? null,
      sandbox: r.sandbox ?? null,
    }));
  }

  async announcements(team: string, to?: string) {
    const rows = await this.reads.rows(AnnouncementRow, { teamName: team, ...(to ? { toMember: to } : {}) }, { orderBy: [{ position: 'asc' }] });
    return rows.map((r) => ({
      announcementId: r.announcementId,
      from: r.fromMember,
      to: r.toMember,
      outcome: r.outcome,
      summary: r.summary,
      result: r.result ?? null,
      announcedAt: r.announcedAt.toISOString(),
    }));
  }
}
