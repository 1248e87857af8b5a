import { Injectable } from '@nestjs/common';
import { evalEvents, type EventData, type evalRunCompleted, type evalRunFailed, type evalRunStarted, type evalTaskGraded } from '@headspace/contracts';
import { EventStore, type RecordedEvent } from '@headspace/event-store';
import { Projection } from '@headspace/platform';
import type { PoolClient } from 'pg';

/** The eval runs list: one row per run with its status, configured model and score, written from each run event alone. */
@Injectable()
export class EvalRunsProjection extends Projection {
  constructor(store: EventStore) {
    super(store, { name: 'eval-runs', types: evalEvents.map((e) => e.type).filter((t) => t !== 'eval.task-started'), tables: ['eval_runs'] });
  }

  protected async apply(event: RecordedEvent, tx: PoolClient): Promise<void> {
    switch (event.type) {
      case 'eval.run-started': {
        const s = event.data as EventData<typeof evalRunStarted>;
        await tx.query(
          `INSERT INTO ${this.q}.eval_runs (eval_run_id, team, status, suite, model, total, started_at) VALUES ($1, $2, 'running', $3, $4, $5, $6) ON CONFLICT (eval_run_id) DO NOTHING`,
          [s.evalRunId, s.team, s.suite.name, s.config.model ?? null, s.suite.tasks.length, s.startedAt],
        );
        return;
      }
      case 'eval.task-graded': {
        const g = event.data as EventData<typeof evalTaskGraded>;
        if (g.passed) await tx.query(`UPDATE ${this.q}.eval_runs SET passed = passed + 1 WHERE eval_run_id = $1`, [g.evalRunId]);
        return;
      }
      case 'eval.run-completed': {
        const c = event.data as EventData<typeof evalRunCompleted>;
        await tx.query(`UPDATE ${this.q}.eval_runs SET status = 'completed', score = $2, passed = $3, ended_at = $4 WHERE eval_run_id = $1`, [c.evalRunId, c.score, c.passed, c.at]);
        return;
      }
      case 'eval.run-failed': {
        const f = event.data as EventData<typeof evalRunFailed>;
        await tx.query(`UPDATE ${this.q}.eval_runs SET status = 'failed', ended_at = $2 WHERE eval_run_id = $1`, [f.evalRunId, f.at]);
        return;
      }
    }
  }
}
