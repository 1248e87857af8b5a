import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { EventRegistry, evalEvents, evalRunStreamId } from '@headspace/contracts';
import { EventStore, migrate, type NewEvent } from '@headspace/event-store';
import { createTestDatabase, inStream, ProjectionSpec, type TestDatabase } from '@headspace/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { EvalRunsProjection } from './eval-runs.projection';

const schema = 'orchestrator';
let db: TestDatabase;
let spec: ProjectionSpec<EvalRunsProjection>;

beforeAll(async () => {
  db = await createTestDatabase('eval_runs');
  await migrate(db.pool, { schema, dirs: [join(__dirname, '..', 'migrations')] });
  const store = new EventStore({ pool: db.pool, schema, registry: new EventRegistry(evalEvents) });
  spec = ProjectionSpec.for(store, () => new EvalRunsProjection(store));
});
afterAll(async () => {
  await db?.drop();
});

const suite = {
  name: 'smoke',
  tasks: [
    { id: 'a', prompt: 'do a', weight: 1, graders: [{ type: 'command', command: 'true', weight: 1 }] },
    { id: 'b', prompt: 'do b', weight: 1, graders: [{ type: 'command', command: 'true', weight: 1 }] },
  ],
};
const started = (evalRunId: string, model?: string): NewEvent => ({
  type: 'eval.run-started',
  data: { evalRunId, team: 'red', workspace: '/src', suitePath: 'evals/smoke.yaml', suite, config: model ? { model } : {}, simulated: true, startedAt: '2026-11-27T02:00:00.000Z' },
});
const taskStarted = (evalRunId: string, taskId: string): NewEvent => ({ type: 'eval.task-started', data: { evalRunId, taskId, askId: `${evalRunId}-t1`, model: 'claude-sonnet-4-6', at: '2026-11-27T02:00:01.000Z' } });
const graded = (evalRunId: string, taskId: string, passed: boolean): NewEvent => ({
  type: 'eval.task-graded',
  data: { evalRunId, taskId, askId: `${evalRunId}-t1`, grades: [{ type: 'command', weight: 1, score: passed ? 1 : 0, passed, detail: 'x' }], score: passed ? 1 : 0, passed, at: '2026-11-27T02:01:00.000Z' },
});
const completed = (evalRunId: string): NewEvent => ({ type: 'eval.run-completed', data: { evalRunId, score: 0.5, passed: 1, total: 2, at: '2026-11-27T02:02:00.000Z' } });
const failed = (evalRunId: string): NewEvent => ({ type: 'eval.run-failed', data: { evalRunId, reason: 'unknown model', at: '2026-11-27T02:02:00.000Z' } });

const row = (evalRunId: string) => ({ sql: 'SELECT * FROM orchestrator.eval_runs WHERE eval_run_id = $1', params: [evalRunId] });
const newId = () => `e-${randomUUID().slice(0, 8)}`;

describe('eval runs projection', () => {
  it('a started run is running with its suite, pinned model and the tasks passed so far', async () => {
    const id = newId();
    await spec
      .when(inStream(evalRunStreamId(id), started(id, 'sonnet'), taskStarted(id, 'a'), graded(id, 'a', true)))
      .then(row(id), [{ eval_run_id: id, team: 'red', status: 'running', suite: 'smoke', model: 'sonnet', score: null, passed: 1, total: 2, ended_at: null }]);
  });

  it('a completed run has its score and end; a routed run has no model', async () => {
    const id = newId();
    await spec
      .given(inStream(evalRunStreamId(id), started(id), taskStarted(id, 'a'), graded(id, 'a', true), taskStarted(id, 'b'), graded(id, 'b', false)))
      .when(inStream(evalRunStreamId(id), completed(id)))
      .then(row(id), [{ status: 'completed', model: null, score: 0.5, passed: 1, ended_at: new Date('2026-11-27T02:02:00.000Z') }]);
  });

  it('a failed run says so', async () => {
    const id = newId();
    await spec.when(inStream(evalRunStreamId(id), started(id), failed(id))).then(row(id), [{ status: 'failed', ended_at: new Date('2026-11-27T02:02:00.000Z') }]);
  });

  it('rebuilt from position 0 equals the live rows', async () => {
    await spec.rebuiltEqualsLive();
  });
});
