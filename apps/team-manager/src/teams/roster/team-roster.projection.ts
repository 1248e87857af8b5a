import { Injectable } from '@nestjs/common';
import {
  DEFAULT_SANDBOX,
  TEAM_LEAD,
  teamCreated,
  teammateAnnounced,
  teammateIdle,
  teammateSpawned,
  teammateTerminated,
  teamShutdownAborted,
  teamShutdownCompleted,
  teamShutdownRequested,
  teamShutdownResponded,
  type TeamView,
} from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';
import type { TeamEvent } from '../team.decider';

type Shutdown = NonNullable<TeamView['shutdown']>;

export const ROSTER_EVENT_TYPES = [
  teamCreated,
  teamShutdownRequested,
  teamShutdownResponded,
  teamShutdownAborted,
  teamShutdownCompleted,
  teammateSpawned,
  teammateIdle,
  teammateAnnounced,
  teammateTerminated,
].map((d) => d.type);

/**
 * The team roster read model: `team_roster_teams` (status, shutdown protocol), `team_roster` (lead and
 * teammates with role, status, session key, depth) and `team_announcements`. Queries read it; commands
 * never do (they decide against the team stream).
 */
@Injectable()
export class TeamRosterProjection extends Projection<RecordedEvent & TeamEvent> {
  constructor(store: EventStore) {
    super(store, { name: 'team-roster', types: ROSTER_EVENT_TYPES, tables: ['team_announcements', 'team_roster', 'team_roster_teams'] });
  }

  protected apply(event: RecordedEvent & TeamEvent, tx: PoolClient): Promise<void> {
    return this.applyTo(event.streamId.slice('team-'.length), event, tx);
  }

  private async applyTo(team: string, event: RecordedEvent & TeamEvent, tx: PoolClient): Promise<void> {
    const q = this.q;
    switch (event.type) {
      case 'team.created': {
        const d = event.data;
        await tx.query(
          `INSERT INTO ${q}.team_roster_teams (team_name, team_id, description, lead_agent_type, metadata, sandbox, default_model, max_spawn_depth, status, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'active', $9)`,
          [d.name, d.teamId, d.description ?? null, d.leadAgentType, d.metadata, d.sandbox ?? DEFAULT_SANDBOX, d.defaultModel ?? null, d.maxSpawnDepth ?? null, d.createdAt],
        );
        await tx.query(
          `INSERT INTO ${q}.team_roster (team_name, member_name, role, agent_type, model, status, depth, sandbox, position)
           VALUES ($1, $2, 'lead', $3, $4, 'active', 0, $5, $6)`,
          [d.name, TEAM_LEAD, d.leadAgentType, d.defaultModel ?? null, d.sandbox ?? DEFAULT_SANDBOX, event.globalPosition.toString()],
        );
        return;
      }
      case 'teammate.spawned': {
        const d = event.data;
        await tx.query(
          `INSERT INTO ${q}.team_roster (team_name, member_name, role, member_id, agent_id, agent_type, model, status, session_key, lane, depth, parent, task, sandbox, position)
           VALUES ($1, $2, 'teammate', $3, $4, $5, $6, 'active', $7, $8, $9, $10, $11, $12, $13)`,
          [team, d.name, d.memberId, d.agentId, d.agentType, d.model ?? null, d.sessionKey, d.lane, d.depth, d.parent, d.task, d.sandbox, event.globalPosition.toString()],
        );
        return;
      }
      case 'teammate.idle':
        await tx.query(`UPDATE ${q}.team_roster SET status = 'idle' WHERE team_name = $1 AND member_name = $2 AND status <> 'terminated'`, [team, event.data.name]);
        return;
      case 'teammate.terminated':
        await tx.query(`UPDATE ${q}.team_roster SET status = 'terminated' WHERE team_name = $1 AND member_name = $2`, [team, event.data.name]);
        return;
      case 'teammate.announced': {
        const d = event.data;
        await tx.query(
          `INSERT INTO ${q}.team_announcements (announcement_id, team_name, from_member, to_member, outcome, summary, result, announced_at, position)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [d.announcementId, team, d.name, d.to, d.outcome, d.summary, d.result ?? null, d.announcedAt, event.globalPosition.toString()],
        );
        return;
      }
      case 'team.shutdown-requested': {
        const d = event.data;
        const shutdown: Shutdown = {
          shutdownId: d.shutdownId,
          outcome: 'pending',
          requestedBy: d.requestedBy,
          deadline: d.deadline,
          forced: false,
          timedOut: false,
          unanswered: [],
          requests: d.requests.map((r) => ({ member: r.member, requestId: r.requestId, answer: 'pending', reason: null, implicit: false })),
        };
        await tx.query(`UPDATE ${q}.team_roster_teams SET status = 'shutting-down', shutdown = $2, shutdown_deadline = $3 WHERE team_name = $1`, [
          team,
          shutdown,
          d.deadline,
        ]);
        return;
      }
      case 'team.shutdown-responded': {
        const d = event.data;
        await this.updateShutdown(tx, team, (s) => ({
          ...s,
          requests: s.requests.map((r) =>
            r.requestId === d.requestId ? { ...r, answer: d.approve ? 'approved' : 'rejected', reason: d.reason ?? null, implicit: d.implicit } : r,
          ),
        }));
        return;
      }
      case 'team.shutdown-aborted':
        await this.updateShutdown(tx, team, (s) => ({ ...s, outcome: 'aborted' }), `status = 'active', shutdown_deadline = NULL`);
        return;
      case 'team.shutdown-completed': {
        const d = event.data;
        const { rows } = await tx.query<{ shutdown: Shutdown | null }>(`SELECT shutdown FROM ${q}.team_roster_teams WHERE team_name = $1`, [team]);
        const previous = d.shutdownId !== undefined && rows[0]?.shutdown?.shutdownId === d.shutdownId ? rows[0].shutdown : null;
        const shutdown: Shutdown = {
          shutdownId: d.shutdownId ?? null,
          requestedBy: previous?.requestedBy ?? null,
          deadline: previous?.deadline ?? null,
          requests: previous?.requests ?? [],
          outcome: 'completed',
          forced: d.forced,
          timedOut: d.timedOut,
          unanswered: d.unanswered,
        };
        await tx.query(`UPDATE ${q}.team_roster_teams SET status = 'shutdown', shutdown = $2, shutdown_deadline = NULL WHERE team_name = $1`, [team, shutdown]);
        await tx.query(`UPDATE ${q}.team_roster SET status = 'terminated' WHERE team_name = $1`, [team]);
        return;
      }
    }
  }

  private async updateShutdown(tx: PoolClient, team: string, change: (s: Shutdown) => Shutdown, extraSet?: string): Promise<void> {
    const { rows } = await tx.query<{ shutdown: Shutdown | null }>(`SELECT shutdown FROM ${this.q}.team_roster_teams WHERE team_name = $1`, [team]);
    const current = rows[0]?.shutdown;
    if (!current) return;
    await tx.query(`UPDATE ${this.q}.team_roster_teams SET shutdown = $2${extraSet ? `, ${extraSet}` : ''} WHERE team_name = $1`, [team, change(current)]);
  }
}
