import { Injectable } from '@nestjs/common';
import { sessionEvents } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';
import type { SessionEvent } from './agent-session.decider';

const activityOf = (event: SessionEvent): string | undefined => {
  switch (event.type) {
    case 'session.model-called':
      return `turn ${event.data.turn} on ${event.data.model}`;
    case 'session.tool-called':
      return `${event.data.tool}${event.data.isError ? ' (failed)' : ''}`;
    case 'session.budget-decided':
      return event.data.decision === 'allowed' ? undefined : `budget ${event.data.decision}: ${event.data.reason ?? ''}`.trim();
    case 'session.handed-off':
      return 'handed off';
    case 'session.compacted':
      return `compacted its context after turn ${event.data.turn}`;
    default:
      return undefined;
  }
};

/** Agent sessions for the dashboard, the run supervisor and the resumer: status, usage, last activity. */
@Injectable()
export class AgentSessionsProjection extends Projection<RecordedEvent & SessionEvent> {
  constructor(store: EventStore) {
    super(store, { name: 'agent-sessions', types: sessionEvents.map((e) => e.type), tables: ['agent_sessions'] });
  }

  protected async apply(event: RecordedEvent & SessionEvent, tx: PoolClient): Promise<void> {
    const at = event.recordedAt;
    if (event.type === 'session.started') {
      const d = event.data;
      await tx.query(
        `INSERT INTO ${this.q}.agent_sessions (session_id, team, persona, kind, run_id, task_id, model, simulated, status, continues_session, started_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'running', $9, $10, $10) ON CONFLICT (session_id) DO NOTHING`,
        [d.sessionId, d.team, d.persona, d.kind, d.runId ?? null, d.taskId ?? null, d.model, d.simulated, d.continuesSession ?? null, d.startedAt],
      );
      return;
    }
    const sessionId = event.data.sessionId;
    const activity = activityOf(event);
    if (activity) await tx.query(`UPDATE ${this.q}.agent_sessions SET last_activity = $2, updated_at = $3 WHERE session_id = $1`, [sessionId, activity, at]);
    if (event.type === 'session.model-called') {
      const u = event.data.usage;
      await tx.query(
        `UPDATE ${this.q}.agent_sessions SET turns = $2, model = $3, input_tokens = input_tokens + $4, output_tokens = output_tokens + $5,
           cache_read_tokens = cache_read_tokens + $6, cache_write_tokens = cache_write_tokens + $7 WHERE session_id = $1`,
        [sessionId, event.data.turn, event.data.model, u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWrite5mTokens + u.cacheWrite1hTokens],
      );
    } else if (event.type === 'session.tool-called') {
      await tx.query(`UPDATE ${this.q}.agent_sessions SET tool_calls = tool_calls + 1 WHERE session_id = $1`, [sessionId]);
    } else if (event.type === 'session.ended') {
      await tx.query(`UPDATE ${this.q}.agent_sessions SET status = 'ended', exit_reason = $2, ended_at = $3, updated_at = $3 WHERE session_id = $1`, [
        sessionId,
        event.data.exitReason,
        event.data.at,
      ]);
    }
  }
}
