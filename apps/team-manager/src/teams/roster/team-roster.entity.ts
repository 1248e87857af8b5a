import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { RosterMember, TeamView } from '@headspace/contracts';

// Rows of the team roster read model (team-roster.projection.ts; migrations/0003_team_roster.sql).

/** One team: its configuration, status and shutdown protocol. */
export const RosterTeamRow = defineEntity({
  name: 'RosterTeamRow',
  tableName: 'team_roster_teams',
  properties: {
    teamName: p.text().primary(),
    teamId: p.text(),
    description: p.text().nullable(),
    leadAgentType: p.text(),
    metadata: p.json<TeamView['metadata']>(),
    sandbox: p.json<TeamView['sandbox']>(),
    defaultModel: p.text().nullable(),
    maxSpawnDepth: p.integer().nullable(),
    status: p.text().$type<TeamView['status']>(),
    shutdown: p.json<NonNullable<TeamView['shutdown']>>().nullable(),
    shutdownDeadline: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type RosterTeamRow = InferEntity<typeof RosterTeamRow>;

/** One member of a team: the lead or a teammate. */
export const RosterMemberRow = defineEntity({
  name: 'RosterMemberRow',
  tableName: 'team_roster',
  properties: {
    teamName: p.text().primary(),
    memberName: p.text().primary(),
    role: p.text().$type<RosterMember['role']>(),
    memberId: p.text().nullable(),
    agentId: p.text().nullable(),
    agentType: p.text(),
    model: p.text().nullable(),
    status: p.text().$type<RosterMember['status']>(),
    sessionKey: p.text().nullable(),
    lane: p.text().nullable(),
    depth: p.integer(),
    parent: p.text().nullable(),
    task: p.text().nullable(),
    sandbox: p.json<NonNullable<RosterMember['sandbox']>>().nullable(),
    position: p.bigint('string'),
  },
});
export type RosterMemberRow = InferEntity<typeof RosterMemberRow>;

/** A teammate's completion announcement to another member. */
export const AnnouncementRow = defineEntity({
  name: 'AnnouncementRow',
  tableName: 'team_announcements',
  properties: {
    announcementId: p.text().primary(),
    teamName: p.text(),
    fromMember: p.text(),
    toMember: p.text(),
    outcome: p.text(),
    summary: p.text(),
    result: p.text().nullable(),
    announcedAt: p.datetime(),
    position: p.bigint('string'),
  },
});
export type AnnouncementRow = InferEntity<typeof AnnouncementRow>;
