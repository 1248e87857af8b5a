import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { EventRegistry, loopEvents, loopStreamId } from '@headspace/contracts';
import { EventStore, migrate, type NewEvent } from '@headspace/event-store';
import { createTestDatabase, inStream, ProjectionSpec, type TestDatabase } from '@headspace/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { LoopsProjection } from './loops.projection';

const schema = 'orchestrator';
let db: TestDatabase;
let spec: ProjectionSpec<LoopsProjection>;

beforeAll(async () => {
  db = await createTestDatabase('loops');
  await migrate(db.pool, { schema, dirs: [join(__dirname, '..', 'migrations')] });
  const store = new EventStore({ pool: db.pool, schema, registry: new EventRegistry(loopEvents) });
  spec = ProjectionSpec.for(store, () => new LoopsProjection(store));
});
afterAll(async () => {
  await db?.drop();
});

const routing = {
  model: 'claude-sonnet-4-6',
  tier: 'sonnet',
  effort: 'standard',
  thinkingBudgetTokens: 10_000,
  reasons: ['default'],
  signals: { isExploration: false, filesAffected: 1, requiresReasoning: false, isTeamLead: false, dependencyDepth: 0, ambiguity: 'low' },
  pinned: false,
};
const limits = { maxIterations: 5, maxDiffLines: 100, sameErrorLimit: 3, stopFile: '.auto/stop' };
const started = (loopId: string): NewEvent => ({
  type: 'loop.started',
  data: { loopId, team: 'red', task: 'make the check pass', persona: 'con', workspace: '/src', check: 'npm test', limits, routing, simulated: true, startedAt: '2026-11-27T02:00:00.000Z' },
});
const iterationStarted = (loopId: string, iteration: number): NewEvent => ({
  type: 'loop.iteration-started',
  data: { loopId, iteration, sessionId: `${loopId}.loop.i${iteration}`, dir: '/ws', branch: `headspace/${loopId}/con`, worktree: '/ws/con', baseCommit: 'b'.repeat(40), at: '2026-11-27T02:00:01.000Z' },
});
const stopped = (loopId: string, reason: string): NewEvent => ({ type: 'loop.stopped', data: { loopId, reason, detail: 'why', at: '2026-11-27T02:10:00.000Z' } });

const row = (loopId: string) => ({ sql: 'SELECT * FROM orchestrator.loops WHERE loop_id = $1', params: [loopId] });

describe('loops projection', () => {
  it('a started loop is running with its persona, routed model and the iterations begun', async () => {
    const id = `l-${randomUUID().slice(0, 8)}`;
    await spec
      .when(inStream(loopStreamId(id), started(id), iterationStarted(id, 1), iterationStarted(id, 2)))
      .then(row(id), [{ loop_id: id, team: 'red', status: 'running', stop_reason: null, persona: 'con', model: 'claude-sonnet-4-6', iterations: 2, ended_at: null }]);
  });

  it('a loop stopped by a safety control is stopped with its reason and end', async () => {
    const id = `l-${randomUUID().slice(0, 8)}`;
    await spec
      .given(inStream(loopStreamId(id), started(id), iterationStarted(id, 1)))
      .when(inStream(loopStreamId(id), stopped(id, 'same-error')))
      .then(row(id), [{ status: 'stopped', stop_reason: 'same-error', ended_at: new Date('2026-11-27T02:10:00.000Z') }]);
  });

  it('a loop that succeeded or failed says so', async () => {
    const ok = `l-${randomUUID().slice(0, 8)}`;
    const bad = `l-${randomUUID().slice(0, 8)}`;
    await spec.when(inStream(loopStreamId(ok), started(ok), stopped(ok, 'succeeded'))).then(row(ok), [{ status: 'succeeded', stop_reason: 'succeeded' }]);
    await spec.when(inStream(loopStreamId(bad), started(bad), stopped(bad, 'failed'))).then(row(bad), [{ status: 'failed', stop_reason: 'failed' }]);
  });

  it('rebuilt from position 0 equals the live rows', async () => {
    await spec.rebuiltEqualsLive();
  });
});
