import { Inject, Injectable } from '@nestjs/common';
import { ErrorCodes, HeadspaceError, type MemberStatus, type RosterMember } from '@headspace/contracts';
import { quoteIdent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';

export interface RosterTeam {
  name: string;
  description: string | null;
  status: string;
  leadAgentType: string;
}

/** Reads of the team roster projection for the members' queries. */
@Injectable()
export class RosterReader {
  private readonly q: string;

  constructor(@Inject(PG_POOL) private readonly pool: Pool, @Inject(SERVICE_SCHEMA) schema: string) {
    this.q = quoteIdent(schema);
  }

  async team(name: string, field = 'team'): Promise<RosterTeam> {
    const { rows } = await this.pool.query(`SELECT team_name, description, status, lead_agent_type FROM ${this.q}.team_roster_teams WHERE team_name = $1`, [name]);
    if (!rows[0]) throw new HeadspaceError(ErrorCodes.teamNotFound, `Team "${name}" does not exist`, { field });
    return { name: rows[0].team_name, description: rows[0].description, status: rows[0].status, leadAgentType: rows[0].lead_agent_type };
  }

  async members(team: string, status?: MemberStatus): Promise<RosterMember[]> {
    const { rows } = await this.pool.query(
      `SELECT * FROM ${this.q}.team_roster WHERE team_name = $1 AND ($2::text IS NULL OR status = $2) ORDER BY position, member_name`,
      [team, status ?? null],
    );
    return rows.map((r) => ({
      name: r.member_name,
      role: r.role,
      memberId: r.member_id,
      agentId: r.agent_id,
      agentType: r.agent_type,
      model: r.model,
      status: r.status,
      sessionKey: r.session_key,
      lane: r.lane,
      depth: r.depth,
      parent: r.parent,
      task: r.task,
      sandbox: r.sandbox,
    }));
  }

  async announcements(team: string, to?: string) {
    const { rows } = await this.pool.query(
      `SELECT * FROM ${this.q}.team_announcements WHERE team_name = $1 AND ($2::text IS NULL OR to_member = $2) ORDER BY position`,
      [team, to ?? null],
    );
    return rows.map((r) => ({
      announcementId: r.announcement_id,
      from: r.from_member,
      to: r.to_member,
      outcome: r.outcome,
      summary: r.summary,
      result: r.result,
      announcedAt: (r.announced_at as Date).toISOString(),
    }));
  }
}
