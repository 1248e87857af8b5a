import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { EventRegistry, learningEvents, learningSessionStreamId, learningStreamId } from '@headspace/contracts';
import { EventStore, migrate, type NewEvent } from '@headspace/event-store';
import { createTestDatabase, inStream, ProjectionSpec, type TestDatabase } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LearningSearch } from './learning-search';
import { LearningsProjection } from './learnings.projection';

const schema = 'orchestrator';
let db: TestDatabase;
let spec: ProjectionSpec<LearningsProjection>;
let search: LearningSearch;

beforeAll(async () => {
  db = await createTestDatabase('learnings');
  await migrate(db.pool, { schema, dirs: [join(__dirname, '..', 'migrations')] });
  const store = new EventStore({ pool: db.pool, schema, registry: new EventRegistry(learningEvents) });
  spec = ProjectionSpec.for(store, () => new LearningsProjection(store));
  search = new LearningSearch(db.pool, schema);
});
afterAll(async () => {
  await db?.drop();
});

const at = '2026-11-27T06:00:00.000Z';
const recorded = (learningId: string, team: string, pattern: string, resolution: string, more: Record<string, unknown> = {}): NewEvent => ({
  type: 'learning.recorded',
  data: { learningId, team, category: 'gotcha', pattern, resolution, confidence: 0.5, source: { kind: 'manual' }, recordedAt: at, ...more },
});
const outcome = (type: 'learning.reinforced' | 'learning.weakened', learningId: string, confidence: number, sessionId = 's-1'): NewEvent => ({
  type,
  data: { learningId, sessionId, confidence, at: '2026-11-27T06:10:00.000Z' },
});
const learning = (id: string, team: string, pattern: string, resolution: string, more?: Record<string, unknown>) => inStream(learningStreamId(id), recorded(id, team, pattern, resolution, more));
const uid = () => randomUUID().slice(0, 8);

describe('learning search (full-text ranking × confidence, real PostgreSQL)', () => {
  it('ranks the relevant learning above an irrelevant one and leaves out what does not match', async () => {
    const team = `t-${uid()}`;
    await spec
      .when(
        learning('bcrypt', team, 'bcrypt.compare returns a promise', 'await bcrypt compare in the login check'),
        learning('login', team, 'login form labels', 'use the login copy from the design file'),
        learning('css', team, 'flexbox gaps in Safari', 'use margins instead of gap'),
      )
      .thenAssert(async () => {
        const found = await search.search({ team, q: 'login check compare', limit: 10, match: 'any' });
        expect(found.map((l) => l.learningId)).toEqual(['bcrypt', 'login']);
        expect(found[0].score).toBeGreaterThan(found[1].score);
        expect(found[0].relevance).toBeGreaterThan(0);
        const all = await search.search({ team, q: 'bcrypt compare', limit: 10, match: 'all' });
        expect(all.map((l) => l.learningId)).toEqual(['bcrypt']);
      });
  });

  it('moves a learning down when sessions given it failed and up when they completed', async () => {
    const team = `t-${uid()}`;
    const a = `a-${uid()}`;
    const b = `b-${uid()}`;
    // Equally relevant: the order is confidence's alone.
    await spec
      .given(learning(a, team, 'port already in use in tests', 'listen on port 0'), learning(b, team, 'port already in use in tests', 'kill the stale server'))
      .when(inStream(learningStreamId(a), outcome('learning.weakened', a, 0.3)), inStream(learningStreamId(b), outcome('learning.reinforced', b, 0.6)))
      .thenAssert(async (pool) => {
        const found = await search.search({ team, q: 'port in use', limit: 10 });
        expect(found.map((l) => [l.learningId, l.confidence])).toEqual([[b, 0.6], [a, 0.3]]);
        const { rows } = await pool.query('SELECT used_at FROM orchestrator.learnings WHERE learning_id = $1', [a]);
        expect(rows[0].used_at).toEqual(new Date('2026-11-27T06:10:00.000Z'));
      });
    await spec
      .when(inStream(learningStreamId(a), outcome('learning.reinforced', a, 0.9, 's-2')), inStream(learningStreamId(b), outcome('learning.weakened', b, 0.2, 's-2')))
      .thenAssert(async () => {
        expect((await search.search({ team, q: 'port in use', limit: 10 })).map((l) => l.learningId)).toEqual([a, b]);
      });
  });

  it('keeps a project or persona filter to its own learnings and those for all', async () => {
    const team = `t-${uid()}`;
    await spec
      .when(
        learning('p-demo', team, 'migrations need a lock', 'take the advisory lock', { project: '/src/demo', persona: 'con' }),
        learning('p-other', team, 'migrations need a lock', 'take the advisory lock', { project: '/src/other' }),
        learning('p-any', team, 'migrations need a lock', 'take the advisory lock'),
        learning('p-al', team, 'migrations need a lock', 'take the advisory lock', { persona: 'al' }),
        learning('other-team', `x-${uid()}`, 'migrations need a lock', 'take the advisory lock'),
      )
      .thenAssert(async () => {
        const ids = async (q: { project?: string; persona?: string }) => (await search.search({ team, q: 'migrations lock', limit: 10, ...q })).map((l) => l.learningId).sort();
        expect(await ids({ project: '/src/demo', persona: 'con' })).toEqual(['p-any', 'p-demo']);
        expect(await ids({ project: '/src/other' })).toEqual(['p-al', 'p-any', 'p-other']);
        expect(await ids({})).toEqual(['p-al', 'p-any', 'p-demo', 'p-other']);
      });
  });

  it('counts the sessions a learning was given to', async () => {
    const team = `t-${uid()}`;
    const id = `g-${uid()}`;
    await spec
      .given(learning(id, team, 'yaml tabs', 'indent with spaces'))
      .when(inStream(learningSessionStreamId(`s-${uid()}`), { type: 'learning.given', data: { sessionId: 's-9', team, learningIds: [id], at } }))
      .then({ sql: 'SELECT uses FROM orchestrator.learnings WHERE learning_id = $1', params: [id] }, [{ uses: 1 }]);
  });

  it('rebuilt from position 0 equals the live rows', async () => {
    await spec.rebuiltEqualsLive();
  });
});
