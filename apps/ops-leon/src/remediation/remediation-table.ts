import { Inject, Injectable } from '@nestjs/common';
import { quoteIdent } from '@headspace/event-store';
import { PG_POOL, SERVICE_SCHEMA } from '@headspace/platform';
import type { Pool } from 'pg';
import type { TriageFacts } from './remediation.policy';

export type Step = 'triage' | 'ask-gavin' | 'ask-robbo' | 'start-fix' | 'run-ended' | 'verify';

export interface Remediation {
  groupId: string;
  project: string;
  step: Step | null;
  stepId: string | null;
  stepInput: Record<string, unknown>;
  attempts: number;
  triage: TriageFacts;
  approvalId: string | null;
  runSeq: number;
  runId: string | null;
  regressionTest: string | null;
  afterFixOk: boolean | null;
  fixRelease: string | null;
  committedAt: Date | null;
  windowSeconds: number | null;
}

type Db = Pick<Pool, 'query'>;

interface Row {
  group_id: string;
  project: string;
  step: Step | null;
  step_id: string | null;
  step_input: Record<string, unknown>;
  attempts: number;
  triage: TriageFacts;
  approval_id: string | null;
  run_seq: number;
  run_id: string | null;
  regression_test: string | null;
  after_fix_ok: boolean | null;
  fix_release: string | null;
  committed_at: Date | null;
  window_seconds: number | null;
}

const toRemediation = (r: Row): Remediation => ({
  groupId: r.group_id,
  project: r.project,
  step: r.step,
  stepId: r.step_id,
  stepInput: r.step_input,
  attempts: r.attempts,
  triage: r.triage,
  approvalId: r.approval_id,
  runSeq: r.run_seq,
  runId: r.run_id,
  regressionTest: r.regression_test,
  afterFixOk: r.after_fix_ok,
  fixRelease: r.fix_release,
  committedAt: r.committed_at,
  windowSeconds: r.window_seconds,
});

/** Extra columns a step change sets at the same time (snake_case column → value). */
export type Columns = Partial<Record<'approval_id' | 'approval_decision' | 'run_seq' | 'run_id' | 'regression_test' | 'after_fix_ok' | 'fix_release' | 'committed_at' | 'window_seconds' | 'triage', unknown>>;

/**
 * The remediation table (migrations/0003): the consumers write it in their inbox transaction, the
 * worker after a step's effects. A step is finished by compare-and-set on its `step_id`, so a step
 * someone scheduled meanwhile (an approval answered while the worker was still proposing) stands.
 */
@Injectable()
export class RemediationTable {
  private readonly t: string;
  private readonly groups: string;

  constructor(
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(SERVICE_SCHEMA) schema: string,
  ) {
    this.t = `${quoteIdent(schema)}.remediations`;
    this.groups = `${quoteIdent(schema)}.exception_groups`;
  }

  async byGroup(groupId: string, db: Db = this.pool): Promise<Remediation | undefined> {
    const { rows } = await db.query<Row>(`SELECT * FROM ${this.t} WHERE group_id = $1`, [groupId]);
    return rows[0] && toRemediation(rows[0]);
  }

  async by(column: 'approval_id' | 'run_id', value: string, db: Db = this.pool): Promise<Remediation | undefined> {
    const { rows } = await db.query<Row>(`SELECT * FROM ${this.t} WHERE ${column} = $1`, [value]);
    return rows[0] && toRemediation(rows[0]);
  }

  /** Steps that have come due, and verifications whose fix's release has been seen again (they need not wait for the window). */
  async due(limit: number): Promise<Remediation[]> {
    const { rows } = await this.pool.query<Row>(
      `SELECT r.* FROM ${this.t} r
        WHERE r.step IS NOT NULL AND r.due_at <= now()
           OR r.step = 'verify' AND EXISTS (
                SELECT 1 FROM ${this.groups} g
                 WHERE g.group_id = r.group_id AND r.fix_release = ANY (g.releases) AND g.last_seen >= r.committed_at)
        ORDER BY r.due_at LIMIT ${limit}`,
    );
    return rows.map(toRemediation);
  }

  /** Schedules `step` (creating the group's row when it has none); a NULL step leaves it waiting. */
  async schedule(
    db: Db,
    s: { groupId: string; project: string; step: Step | null; stepId: string; input?: Record<string, unknown>; dueAt?: Date; columns?: Columns },
  ): Promise<void> {
    const columns = Object.entries(s.columns ?? {});
    const names = columns.map(([c]) => c);
    const values = columns.map(([c, v]) => (c === 'triage' ? JSON.stringify(v) : v));
    const params = [s.groupId, s.project, s.step, s.stepId, JSON.stringify(s.input ?? {}), s.dueAt ?? new Date(), ...values];
    const placeholders = names.map((_, i) => `$${i + 7}`);
    await db.query(
      `INSERT INTO ${this.t} (group_id, project, step, step_id, step_input, due_at, attempts, last_error${names.map((n) => `, ${n}`).join('')})
       VALUES ($1, $2, $3, $4, $5, $6, 0, NULL${placeholders.map((p) => `, ${p}`).join('')})
       ON CONFLICT (group_id) DO UPDATE SET step = $3, step_id = $4, step_input = $5, due_at = $6, attempts = 0, last_error = NULL, updated_at = now()
         ${names.map((n, i) => `, ${n} = ${placeholders[i]}`).join('')}`,
      params,
    );
  }

  /** Sets columns without touching the step (what a run reported, the approval it waits on). */
  async set(groupId: string, columns: Columns, db: Db = this.pool): Promise<void> {
    const entries = Object.entries(columns);
    await db.query(
      `UPDATE ${this.t} SET ${entries.map(([c], i) => `${c} = $${i + 2}`).join(', ')}, updated_at = now() WHERE group_id = $1`,
      [groupId, ...entries.map(([c, v]) => (c === 'triage' ? JSON.stringify(v) : v))],
    );
  }

  /** Finishes the step `stepId` with the next one (or none); false when another step replaced it meanwhile. */
  async finish(
    groupId: string,
    stepId: string,
    next: { step: Step | null; stepId?: string; input?: Record<string, unknown>; dueAt?: Date; columns?: Columns },
  ): Promise<boolean> {
    const entries = Object.entries(next.columns ?? {});
    const { rowCount } = await this.pool.query(
      `UPDATE ${this.t} SET step = $3, step_id = $4, step_input = $5, due_at = $6, attempts = 0, last_error = NULL, updated_at = now()
         ${entries.map(([c], i) => `, ${c} = $${i + 7}`).join('')}
        WHERE group_id = $1 AND step_id = $2`,
      [groupId, stepId, next.step, next.stepId ?? stepId, JSON.stringify(next.input ?? {}), next.dueAt ?? new Date(), ...entries.map(([c, v]) => (c === 'triage' ? JSON.stringify(v) : v))],
    );
    return rowCount === 1;
  }

  /** Keeps what a step learned before acting on it (a model's judgement), so a retry acts on the same answer. */
  async keepInput(groupId: string, stepId: string, input: Record<string, unknown>): Promise<void> {
    await this.pool.query(`UPDATE ${this.t} SET step_input = $3, updated_at = now() WHERE group_id = $1 AND step_id = $2`, [groupId, stepId, JSON.stringify(input)]);
  }

  /** A failed try: the same step again after `delayMs`. */
  async retryLater(groupId: string, stepId: string, error: string, delayMs: number): Promise<void> {
    await this.pool.query(
      `UPDATE ${this.t} SET attempts = attempts + 1, last_error = $3, due_at = now() + make_interval(secs => $4::double precision / 1000), updated_at = now()
        WHERE group_id = $1 AND step_id = $2`,
      [groupId, stepId, error.slice(0, 2_000), delayMs],
    );
  }
}
