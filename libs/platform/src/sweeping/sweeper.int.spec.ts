import { migrate } from '@headspace/event-store';
import { createTestDatabase, waitFor, type TestDatabase } from '@headspace/testing';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sweeper } from './sweeper';

const schema = 'sweeper_spec';
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase('sweeper');
  await migrate(db.pool, { schema });
});
afterAll(async () => {
  await db?.drop();
});

/** What every instance of one sweeper saw: how many were inside a pass at once, at most. */
class Overlap {
  inside = 0;
  most = 0;
}

/** A sweeper whose pass takes a database round trip of a few ms, counting who is inside one. */
class ProbeSweeper extends Sweeper {
  constructor(
    private readonly pool: Pool,
    name: string,
    private readonly overlap: Overlap,
    instanceId: string,
  ) {
    super(pool, schema, { name, intervalMs: 5, instanceId });
  }

  protected async sweep(): Promise<void> {
    this.overlap.most = Math.max(this.overlap.most, ++this.overlap.inside);
    try {
      await this.pool.query('SELECT pg_sleep(0.01)');
    } finally {
      this.overlap.inside--;
    }
  }
}

describe('Sweeper', () => {
  it('two instances never sweep at once: only the lease holder makes passes', async () => {
    const overlap = new Overlap();
    const [a, b] = [new ProbeSweeper(db.pool, 'probe-one', overlap, 'a'), new ProbeSweeper(db.pool, 'probe-one', overlap, 'b')];
    a.start();
    b.start();
    try {
      await waitFor(() => a.passes + b.passes >= 20, { message: '20 passes' });
      expect(overlap.most).toBe(1);
      expect([a.passes, b.passes].filter((n) => n > 0)).toHaveLength(1);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('a second instance takes over at once when the holder stops', async () => {
    const overlap = new Overlap();
    const [first, second] = [new ProbeSweeper(db.pool, 'probe-two', overlap, 'first'), new ProbeSweeper(db.pool, 'probe-two', overlap, 'second')];
    first.start();
    await waitFor(() => first.passes > 0, { message: 'the first instance sweeping' });
    second.start();
    try {
      await waitFor(() => first.passes >= 5, { message: 'five more passes of the first' });
      expect(second.passes).toBe(0);
      await first.stop();
      // Its lease is 10 s: a takeover within the deadline below is the release, not the expiry.
      await waitFor(() => second.passes > 0, { timeoutMs: 5_000, message: 'the second instance sweeping' });
      expect(second.isSweeping).toBe(true);
      expect(overlap.most).toBe(1);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });

  it('a stopped sweeper makes no more passes', async () => {
    const sweeper = new ProbeSweeper(db.pool, 'probe-three', new Overlap(), 'only');
    sweeper.start();
    await waitFor(() => sweeper.passes > 0, { message: 'a pass' });
    await sweeper.stop();
    const passes = sweeper.passes;
    // A holder that stopped has released: another instance can take the lease now.
    const other = new ProbeSweeper(db.pool, 'probe-three', new Overlap(), 'other');
    other.start();
    try {
      await waitFor(() => other.passes > 0, { timeoutMs: 5_000, message: 'the other instance sweeping' });
      expect(sweeper.passes).toBe(passes);
    } finally {
      await other.stop();
    }
  });
});
