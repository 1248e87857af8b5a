import { join } from 'node:path';
import { migrate } from '@headspace/event-store';
import { LearningSearch } from '../apps/orchestrator/src/learnings/learning-search';
import { benchDatabase, percentile, type BenchRow } from './bench-kit';

const WORDS = 'parse config settings json yaml port server test flaky migration lock database index query cache token budget retry timeout login bcrypt await promise commit branch merge lint build deploy docker queue stream event projection checkpoint lease fence redis memory leak'.split(' ');

/**
 * The learning store's retrieval cost at a session's start (ADR 0048): the session query (an OR of
 * a task's lexemes, ranked by ts_rank_cd × confidence, top 5) against a team holding N learnings
 * in the `learnings` read model, timed sequentially. A number to watch, not a target.
 */
export async function benchLearningRetrieval(options: { quick: boolean }): Promise<BenchRow[]> {
  const learnings = options.quick ? 5_000 : 50_000;
  const queries = options.quick ? 200 : 1_000;
  const db = await benchDatabase('learnings');
  try {
    await migrate(db.pool, { schema: 'orchestrator', dirs: [join(__dirname, '..', 'apps', 'orchestrator', 'src', 'migrations')] });
    const pick = (i: number, k: number) => WORDS[(i * 7 + k * 13) % WORDS.length];
    await db.pool.query(
      `INSERT INTO orchestrator.learnings (learning_id, team, category, pattern, resolution, confidence, source, created_at)
       SELECT 'l-' || i, 'bench', 'gotcha', w[(i % n) + 1] || ' ' || w[((i * 7) % n) + 1] || ' fails ' || i, 'check the ' || w[((i * 13) % n) + 1], ((i % 100) + 1) / 101.0, '{"kind":"manual"}', now()
       FROM (SELECT $1::text[] AS w, cardinality($1::text[]) AS n) words, generate_series(1, $2::int) i`,
      [WORDS, learnings],
    );
    await db.pool.query('ANALYZE orchestrator.learnings');
    const search = new LearningSearch(db.pool, 'orchestrator');
    const times: number[] = [];
    for (let i = 0; i < queries; i++) {
      const q = `Request: fix the ${pick(i, 1)} ${pick(i, 2)} when the ${pick(i, 3)} is slow`;
      const started = performance.now();
      await search.search({ team: 'bench', q, limit: 5, match: 'any' });
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return [
      { name: `learning retrieval p50 (${learnings.toLocaleString('en-US')} learnings, top 5)`, value: percentile(times, 50), unit: 'ms' },
      { name: `learning retrieval p95 (${learnings.toLocaleString('en-US')} learnings, top 5)`, value: percentile(times, 95), unit: 'ms' },
    ];
  } finally {
    await db.drop();
  }
}
