import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { askEvents, askStreamId, EventRegistry } from '@headspace/contracts';
import { EventStore, migrate, type NewEvent } from '@headspace/event-store';
import { createTestDatabase, inStream, ProjectionSpec, type TestDatabase } from '@headspace/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { AsksProjection } from './asks.projection';

const schema = 'orchestrator';
let db: TestDatabase;
let spec: ProjectionSpec<AsksProjection>;

beforeAll(async () => {
  db = await createTestDatabase('asks');
  await migrate(db.pool, { schema, dirs: [join(__dirname, '..', 'migrations')] });
  const store = new EventStore({ pool: db.pool, schema, registry: new EventRegistry(askEvents) });
  spec = ProjectionSpec.for(store, () => new AsksProjection(store));
});
afterAll(async () => {
  await db?.drop();
});

const routing = {
  model: 'claude-haiku-4-5',
  tier: 'haiku',
  effort: 'quick',
  thinkingBudgetTokens: 2_000,
  reasons: ['names 1 file: README.md'],
  signals: { isExploration: false, filesAffected: 1, requiresReasoning: false, isTeamLead: false, dependencyDepth: 0, ambiguity: 'low' },
  pinned: false,
};
const usage = { inputTokens: 100, outputTokens: 20, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 };
const started = (askId: string, team = 'red'): NewEvent => ({
  type: 'ask.started',
  data: { askId, team, prompt: 'fix the typo in README.md', promptDigest: 'a'.repeat(64), persona: 'con', workspace: '/src', routing, simulated: true, startedAt: '2026-11-26T10:00:00.000Z' },
});
const sessionStarted = (askId: string): NewEvent => ({
  type: 'ask.session-started',
  data: { askId, sessionId: `${askId}.ask.a1`, persona: 'con', dir: '/ws', branch: `headspace/${askId}/main`, baseCommit: 'b'.repeat(40), worktree: '/ws/con', at: '2026-11-26T10:00:01.000Z' },
});
const completed = (askId: string): NewEvent => ({
  type: 'ask.completed',
  data: { askId, sessionId: `${askId}.ask.a1`, result: 'Fixed.', filesChanged: ['README.md'], dir: '/ws', branch: `headspace/${askId}/main`, commit: 'c'.repeat(40), costUsd: '0.0012', usage, turns: 2, at: '2026-11-26T10:00:09.000Z' },
});
const failed = (askId: string): NewEvent => ({ type: 'ask.failed', data: { askId, reason: 'budget stopped', costUsd: '0.0003', at: '2026-11-26T10:00:05.000Z' } });

const row = (askId: string) => ({ sql: 'SELECT * FROM orchestrator.asks WHERE ask_id = $1', params: [askId] });

describe('asks projection', () => {
  it('a started ask is running with its persona and routed model, no cost yet', async () => {
    const id = `a-${randomUUID().slice(0, 8)}`;
    await spec.when(inStream(askStreamId(id), started(id), sessionStarted(id))).then(row(id), [{ ask_id: id, team: 'red', status: 'running', persona: 'con', model: 'claude-haiku-4-5', cost_usd: null, ended_at: null }]);
  });

  it('a completed ask has its cost and end', async () => {
    const id = `a-${randomUUID().slice(0, 8)}`;
    await spec
      .given(inStream(askStreamId(id), started(id), sessionStarted(id)))
      .when(inStream(askStreamId(id), completed(id)))
      .then(row(id), [{ status: 'completed', cost_usd: '0.0012', ended_at: new Date('2026-11-26T10:00:09.000Z') }]);
  });

  it('a failed ask keeps what it spent', async () => {
    const id = `a-${randomUUID().slice(0, 8)}`;
    await spec.when(inStream(askStreamId(id), started(id), failed(id))).then(row(id), [{ status: 'failed', cost_usd: '0.0003' }]);
  });

  it('rebuilt from position 0 equals the live rows', async () => {
    await spec.rebuiltEqualsLive();
  });
});
