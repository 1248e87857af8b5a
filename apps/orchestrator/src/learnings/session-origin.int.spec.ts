import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { askEvents, askStreamId, EventRegistry, loopEvents, loopStreamId } from '@headspace/contracts';
import { EventStore, migrate } from '@headspace/event-store';
import { createTestDatabase, type TestDatabase } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionOrigin } from './session-origin';

let db: TestDatabase;
let store: EventStore;

beforeAll(async () => {
  db = await createTestDatabase('learning-origin');
  await migrate(db.pool, { schema: 'orchestrator', dirs: [join(__dirname, '..', 'migrations')] });
  store = new EventStore({ pool: db.pool, schema: 'orchestrator', registry: new EventRegistry([...askEvents, ...loopEvents]) });
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
const uid = () => randomUUID().slice(0, 8);

describe('where a session comes from (the source and project of its learnings)', () => {
  it('an ask’s session: the ask, and its workspace as the project', async () => {
    const askId = `a-${uid()}`;
    await store.append(askStreamId(askId), [
      { type: 'ask.started', data: { askId, team: 'red', prompt: 'read the settings', promptDigest: 'a'.repeat(64), persona: 'con', workspace: '/src/app', routing, simulated: true, startedAt: '2026-11-27T06:00:00.000Z' } },
    ], { expected: 'any' });
    expect(await sessionOrigin(store, { runId: askId, sessionId: `${askId}.ask.a1` })).toEqual({ source: { kind: 'ask', id: askId, sessionId: `${askId}.ask.a1` }, project: '/src/app' });
  });

  it('a loop’s session: the loop, the iteration that started it, and the loop’s workspace', async () => {
    const loopId = `l-${uid()}`;
    const limits = { maxIterations: 5, maxDiffLines: 100, sameErrorLimit: 3, stopFile: '.auto/stop' };
    const iteration = (n: number) => ({
      type: 'loop.iteration-started',
      data: { loopId, iteration: n, sessionId: `${loopId}.loop.i${n}`, dir: '/ws', branch: `headspace/${loopId}/con`, worktree: '/ws/con', baseCommit: 'b'.repeat(40), at: '2026-11-27T06:00:01.000Z' },
    });
    await store.append(loopStreamId(loopId), [
      { type: 'loop.started', data: { loopId, team: 'red', task: 'make the check pass', persona: 'con', workspace: '/src/svc', check: 'npm test', limits, routing, simulated: true, startedAt: '2026-11-27T06:00:00.000Z' } },
      iteration(1),
      iteration(2),
    ], { expected: 'any' });
    expect(await sessionOrigin(store, { runId: loopId, sessionId: `${loopId}.loop.i2` })).toEqual({ source: { kind: 'loop', id: loopId, sessionId: `${loopId}.loop.i2`, iteration: 2 }, project: '/src/svc' });
  });

  it('a run’s session has no project; a session outside any run is its own source', async () => {
    expect(await sessionOrigin(store, { runId: `r-${uid()}`, sessionId: 's-1' })).toEqual({ source: { kind: 'run', id: expect.any(String), sessionId: 's-1' } });
    expect(await sessionOrigin(store, { sessionId: 's-2' })).toEqual({ source: { kind: 'session', sessionId: 's-2' } });
  });
});
