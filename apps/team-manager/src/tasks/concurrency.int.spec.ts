import { ErrorCodes, HeadspaceError, claimTask, completeTask, createTask, createTasks, listTasks } from '@headspace/contracts';
import { COMMAND_RETRY, ConcurrencyError, withRetry } from '@headspace/event-store';
import { PG_POOL } from '@headspace/platform';
import { waitFor } from '@headspace/testing';
import { Client, type Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTeamManager, type TeamManagerHarness } from '../testing/team-manager-harness';
import { taskSpecKit } from './task-spec-kit';

/**
 * Feature 4 of seed 004 was written for SQLite. Each test below states the PostgreSQL property its
 * scenario stands for (SPEC-MAP.md): the service runs on PostgreSQL's MVCC, row locks and the event
 * store's per-stream compare-and-set, so those are what is tested.
 */
let h: TeamManagerHarness;
const { newTeam, board, byId, eventCount } = taskSpecKit(() => h, waitFor);
const slow = { timeoutMs: 30_000 };

beforeAll(async () => {
  h = await startTeamManager('concurrency');
});
afterAll(async () => {
  await h?.close();
});

/** A test connection holding a write transaction open (the service's own are too short to catch). */
async function openWriter(): Promise<Client> {
  const client = new Client({ connectionString: h.db.url });
  client.on('error', () => undefined);
  await client.connect();
  await client.query('BEGIN');
  return client;
}

const streamVersion = async (streamId: string) =>
  (await h.db.pool.query(`SELECT version FROM team_manager.streams WHERE stream_id = $1`, [streamId])).rows[0]?.version as string | undefined;

/** 50 claimers on each task at once: exactly one owner per task, 49 conflicts each, no partial state. */
async function claimRace(team: string, tasks: number, claimers: number) {
  const ids = Array.from({ length: tasks }, (_, i) => `race-${i}`);
  await h.send(createTasks, { team, tasks: ids.map((id) => ({ id, subject: id })) });
  const results = await Promise.all(
    ids.flatMap((taskId) =>
      Array.from({ length: claimers }, (_, c) =>
        h.send(claimTask, { team, taskId, owner: `agent-${c}` }, slow).then(
          (r) => ({ taskId, owner: r.owner, error: undefined as string | undefined }),
          (e: HeadspaceError) => ({ taskId, owner: undefined, error: e.code }),
        ),
      ),
    ),
  );
  const rows = await board(team, { status: 'claimed' }, (t) => t.length === tasks);
  for (const taskId of ids) {
    const mine = results.filter((r) => r.taskId === taskId);
    const winners = mine.filter((r) => r.owner !== undefined);
    expect(winners).toHaveLength(1);
    expect(mine.filter((r) => r.error === ErrorCodes.taskAlreadyClaimed)).toHaveLength(claimers - 1);
    expect(byId(rows, taskId)?.owner).toBe(winners[0].owner);
  }
  // No partial state: every task stream is exactly [created, claimed].
  const { rows: streams } = await h.db.pool.query(
    `SELECT stream_id, array_agg(type ORDER BY stream_version) AS types FROM team_manager.events WHERE stream_id LIKE $1 GROUP BY stream_id`,
    [`task-${team}.%`],
  );
  expect(streams).toHaveLength(tasks);
  for (const s of streams) expect(s.types).toEqual(['task.created', 'task.claimed']);
}

describe('Feature 4: Concurrency Control', () => {
  // SQLite WAL (readers not blocked by the writer) → PostgreSQL MVCC: while a write transaction on
  // the very rows being read is open, queries read the last committed version without waiting.
  it('WAL mode enables concurrent reads during writes', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'w', subject: 'W', activeForm: 'Committed' });
    await board(team, {}, (t) => t.length === 1);
    const writer = await openWriter();
    try {
      await writer.query(`UPDATE team_manager.task_board SET active_form = 'Uncommitted' WHERE team = $1`, [team]);
      const { tasks } = await h.send(listTasks, { team }, { timeoutMs: 2_000 });
      expect(tasks[0].activeForm).toBe('Committed');
      await writer.query('COMMIT');
    } finally {
      await writer.end();
    }
    await board(team, {}, (t) => t[0]?.activeForm === 'Uncommitted');
  });

  // Many readers during one write: all of them answer (no SQLITE_BUSY analogue for readers).
  it('Multiple readers access DB during single write', async () => {
    const team = await newTeam();
    await h.send(createTasks, { team, tasks: [{ id: 'a', subject: 'A' }, { id: 'b', subject: 'B' }] });
    await board(team, {}, (t) => t.length === 2);
    const writer = await openWriter();
    try {
      await writer.query(`UPDATE team_manager.task_board SET subject = 'being rewritten' WHERE team = $1`, [team]);
      const reads = await Promise.all(Array.from({ length: 20 }, () => h.send(listTasks, { team }, { timeoutMs: 2_000 })));
      for (const { tasks } of reads) expect(tasks.map((t) => t.subject)).toEqual(['A', 'B']);
    } finally {
      await writer.query('ROLLBACK');
      await writer.end();
    }
  });

  // One writer at a time → PostgreSQL row locks: a transaction that updated the task's stream row
  // makes the claim's compare-and-set wait until it ends; the claim then succeeds.
  it('Write operation blocks other writers', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'x', subject: 'X' });
    const writer = await openWriter();
    let settled = false;
    let claim: Promise<unknown> | undefined;
    try {
      await writer.query(`UPDATE team_manager.streams SET updated_at = now() WHERE stream_id = $1`, [`task-${team}.x`]);
      claim = h.send(claimTask, { team, taskId: 'x', owner: 'con' }, slow).finally(() => (settled = true));
      await waitFor(
        async () =>
          (await h.db.pool.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%streams%'`)).rowCount,
        { message: 'the claim waits on the row lock' },
      );
      expect(settled).toBe(false);
      await writer.query('COMMIT');
    } finally {
      await writer.end();
    }
    await expect(claim).resolves.toMatchObject({ owner: 'con', streamVersion: '2' });
  });

  // SHARED/RESERVED/PENDING/EXCLUSIVE → PostgreSQL's lock modes: the writer holds RowExclusiveLock on
  // the table plus the row's lock until commit; a second writer queues (not granted) on the first
  // one's transaction; readers take AccessShareLock, which conflicts with neither.
  it('Lock levels: SHARED, RESERVED, PENDING, EXCLUSIVE', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'l', subject: 'L' });
    const writer = await openWriter();
    let claim: Promise<unknown> | undefined;
    try {
      const pid = (await writer.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      await writer.query(`UPDATE team_manager.streams SET updated_at = now() WHERE stream_id = $1`, [`task-${team}.l`]);
      claim = h.send(claimTask, { team, taskId: 'l', owner: 'al' }, slow);
      const waiting = await waitFor(
        async () =>
          (
            await h.db.pool.query(
              `SELECT l.locktype, l.mode FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE a.datname = current_database() AND NOT l.granted AND l.locktype = 'transactionid'`,
            )
          ).rows[0],
        { message: 'a queued writer' },
      );
      expect(waiting).toMatchObject({ locktype: 'transactionid', mode: 'ShareLock' });
      const held = (
        await h.db.pool.query(`SELECT l.mode FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE l.pid = $1 AND c.relname = 'streams' AND l.granted`, [pid])
      ).rows.map((r) => r.mode);
      expect(held).toContain('RowExclusiveLock');
      // A reader is not held back by either of them.
      await expect(h.send(listTasks, { team }, { timeoutMs: 2_000 })).resolves.toBeDefined();
      await writer.query('COMMIT');
    } finally {
      await writer.end();
    }
    await expect(claim).resolves.toMatchObject({ owner: 'al' });
  });

  // BEGIN CONCURRENT → optimistic concurrency: both claimers decide against version 1 without any
  // lock; the append's compare-and-set admits exactly one, the other gets a ConcurrencyError.
  it('BEGIN CONCURRENT for optimistic concurrency', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'o', subject: 'O' });
    const results = await Promise.allSettled(['con', 'al'].map((owner) => h.send(claimTask, { team, taskId: 'o', owner, expectedVersion: '1' })));
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0].reason).toMatchObject({ code: ErrorCodes.wrongExpectedVersion, details: { expected: '1', actual: '2' } });
  });

  // Rollback on conflict → a stale expected version writes nothing (the compare-and-set and the
  // insert are one statement); deciding again on the fresh version gives the business answer.
  it('CONCURRENT rollback on conflict', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'r', subject: 'R' });
    await h.send(claimTask, { team, taskId: 'r', owner: 'con' });
    const before = await eventCount(team);
    const stale = await h.sendError(claimTask, { team, taskId: 'r', owner: 'al', expectedVersion: '1' });
    expect(stale.code).toBe(ErrorCodes.wrongExpectedVersion);
    expect(await eventCount(team)).toBe(before);
    expect(await streamVersion(`task-${team}.r`)).toBe('2');
    expect((await h.sendError(claimTask, { team, taskId: 'r', owner: 'al', expectedVersion: '2' })).code).toBe(ErrorCodes.taskAlreadyClaimed);
  });

  // Checkpoint starvation (readers pinning the WAL) → the xid8 read fence: with appends going on all
  // the time, the board's processor keeps advancing (short write transactions never hold it back).
  it('Checkpoint starvation prevention', async () => {
    const teams = [await newTeam('s1'), await newTeam('s2'), await newTeam('s3')];
    let writing = true;
    const written = [0, 0, 0];
    // Three writers append without pause, their short transactions overlapping all the time.
    const writers = teams.map(async (team, w) => {
      while (writing) {
        await h.send(createTask, { team, id: `s${written[w]}`, subject: 'S' });
        written[w]++;
      }
    });
    const seen = async () => (await h.send(listTasks, { team: teams[0], limit: 1_000 })).tasks.length;
    try {
      const first = await waitFor(async () => ((await seen()) >= 10 ? seen() : undefined), { timeoutMs: 20_000, message: 'the board advances while appends continue' });
      const second = await waitFor(async () => {
        const n = await seen();
        return n >= first + 10 ? n : undefined;
      }, { timeoutMs: 20_000, message: 'and keeps advancing' });
      expect(second).toBeGreaterThanOrEqual(first + 10);
    } finally {
      writing = false;
      await Promise.all(writers);
    }
    await board(teams[0], { limit: 1_000 }, (t) => t.length === written[0]);
  });

  // WAL checkpoint threshold (wal_autocheckpoint) → PostgreSQL's max_wal_size / checkpoint_timeout:
  // readable, positive, and changeable by a reload (context 'sighup'), no restart.
  it('Configurable WAL checkpoint threshold', async () => {
    const pool = h.apps[0].get<Pool>(PG_POOL);
    const { rows } = await pool.query(`SELECT name, setting, unit, context FROM pg_settings WHERE name IN ('max_wal_size', 'checkpoint_timeout') ORDER BY name`);
    expect(rows.map((r) => [r.name, r.context])).toEqual([['checkpoint_timeout', 'sighup'], ['max_wal_size', 'sighup']]);
    for (const r of rows) expect(Number(r.setting)).toBeGreaterThan(0);
    expect((await pool.query('SHOW max_wal_size')).rows[0].max_wal_size).toMatch(/^\d+[kMGT]?B$/);
  });

  // The seed's UPDATE … WHERE owner IS NULL race → 50 claimers on each of 20 tasks through the
  // service: one compare-and-set per task succeeds, the rest are refused (ALREADY_CLAIMED).
  it('Atomic task claiming prevents race conditions', async () => {
    await claimRace(await newTeam('race'), 20, 50);
  });

  // UPDATE … WHERE owner IS NULL returning 1 row → the compare-and-set moved the stream by exactly one.
  it('UPDATE with WHERE returns row count', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'u', subject: 'U' });
    const before = await eventCount(team);
    const claim = await h.send(claimTask, { team, taskId: 'u', owner: 'con' });
    expect(claim.streamVersion).toBe('2');
    expect(await eventCount(team)).toBe(before + 1);
  });

  // Zero rows → the compare-and-set matched nothing: the claim is refused and nothing is written.
  it('Zero rows affected = task already claimed', async () => {
    const team = await newTeam();
    await h.send(createTask, { team, id: 'z', subject: 'Z' });
    await h.send(claimTask, { team, taskId: 'z', owner: 'con' });
    const before = await eventCount(team);
    const error = await h.sendError(claimTask, { team, taskId: 'z', owner: 'al' });
    expect(error).toMatchObject({ code: ErrorCodes.taskAlreadyClaimed, details: { owner: 'con' } });
    expect(await eventCount(team)).toBe(before);
    expect(await streamVersion(`task-${team}.z`)).toBe('2');
  });

  // SERIALIZABLE → the claim is decided against the task stream at its exact version (and its
  // dependencies' streams): claims racing the dependency's completion behave as some serial order —
  // at most one wins, and only after the completion it depends on.
  it('Transaction isolation level SERIALIZABLE for claim', async () => {
    const team = await newTeam();
    await h.send(createTasks, { team, tasks: [{ id: 'dep', subject: 'Dep' }, { id: 'next', subject: 'Next', dependsOn: ['dep'] }] });
    await h.send(claimTask, { team, taskId: 'dep', owner: 'con' });
    const [, ...claims] = await Promise.allSettled([
      h.send(completeTask, { team, taskId: 'dep', owner: 'con' }),
      ...Array.from({ length: 10 }, (_, i) => h.send(claimTask, { team, taskId: 'next', owner: `agent-${i}` })),
    ]);
    const won = claims.filter((r) => r.status === 'fulfilled');
    expect(won.length).toBeLessThanOrEqual(1);
    for (const r of claims) if (r.status === 'rejected') expect([ErrorCodes.taskBlocked, ErrorCodes.taskAlreadyClaimed]).toContain(r.reason.code);
    if (won.length === 0) await h.send(claimTask, { team, taskId: 'next', owner: 'late' });
    const { rows } = await h.db.pool.query(
      `SELECT stream_id, type FROM team_manager.events WHERE stream_id IN ($1, $2) AND type IN ('task.completed', 'task.claimed') ORDER BY transaction_id, global_position`,
      [`task-${team}.dep`, `task-${team}.next`],
    );
    const order = rows.map((r) => `${r.stream_id.endsWith('.dep') ? 'dep' : 'next'}:${r.type}`);
    expect(order).toEqual(['dep:task.claimed', 'dep:task.completed', 'next:task.claimed']);
  });

  // SQLITE_BUSY retries → creators of one task list wait their turn (a per-team queue, and across
  // replicas an advisory lock keyed by the list stream) instead of failing busy: five creators racing
  // for the same task-list stream all succeed, each at its own version.
  it('Retry logic on SQLITE_BUSY error', async () => {
    const team = await newTeam();
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => h.send(createTask, { team, id: `c${i}`, subject: `C${i}` })));
    expect(results.map((r) => r.streamVersion).sort()).toEqual(['1', '2', '3', '4', '5']);
    expect(await streamVersion(`tasklist-${team}`)).toBe('5');
  });

  // Max 5 attempts: the command handlers' retry policy gives up after the fifth lost race.
  it('Maximum retry attempts', async () => {
    let attempts = 0;
    const error = await withRetry(async () => {
      attempts++;
      throw new ConcurrencyError('task-x.y', 1n, 2n);
    }, COMMAND_RETRY).catch((e: HeadspaceError) => e);
    expect(attempts).toBe(5);
    expect(error).toMatchObject({ code: ErrorCodes.retriesExhausted, details: { attempts: 5 } });
  });

  // Exponential backoff: the wait before attempt k is drawn below base·2^(k-1) (full jitter); with
  // the jitter pinned to its top the waits double: 5, 10, 20, 40 ms.
  it('Exponential backoff between retries', async () => {
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const at: number[] = [];
    try {
      await withRetry(async () => {
        at.push(performance.now());
        throw new ConcurrencyError('task-x.y', 1n, 2n);
      }, COMMAND_RETRY).catch(() => undefined);
    } finally {
      random.mockRestore();
    }
    const waits = at.slice(1).map((t, i) => t - at[i]);
    expect(waits).toHaveLength(4);
    [5, 10, 20, 40].forEach((ceiling, i) => expect(waits[i]).toBeGreaterThanOrEqual(ceiling * 0.999 - 2));
  });

  // Consistent lock order: every creation takes the task-list stream's advisory lock first, then the
  // list's row, then its new task streams in id order; overlapping batches in opposite orders
  // serialise, none deadlocks.
  it('Deadlock prevention with consistent ordering', async () => {
    const team = await newTeam();
    const deadlocks = async () => Number((await h.db.pool.query(`SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`)).rows[0].deadlocks);
    const before = await deadlocks();
    const ids = ['k1', 'k2', 'k3', 'k4'];
    const batches = Array.from({ length: 6 }, (_, b) => (b % 2 ? [...ids].reverse() : ids).map((id) => ({ id, subject: `${id} from ${b}` })));
    const results = await Promise.allSettled(batches.map((tasks) => h.send(createTasks, { team, tasks })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason.code).toBe(ErrorCodes.taskAlreadyExists);
    expect(await deadlocks()).toBe(before);
    expect((await board(team, {}, (t) => t.length === 4)).map((t) => t.taskId).sort()).toEqual(ids);
  });

  // Transaction timeout → idle_in_transaction_session_timeout: the service's pool sets it (a
  // forgotten transaction would hold the xid8 fence), and PostgreSQL ends such a session itself.
  it('Transaction timeout', async () => {
    const pool = h.apps[0].get<Pool>(PG_POOL);
    expect((await pool.query('SHOW idle_in_transaction_session_timeout')).rows[0].idle_in_transaction_session_timeout).toBe('30s');
    const client = new Client({ connectionString: h.db.url });
    client.on('error', () => undefined);
    await client.connect();
    try {
      const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      await client.query(`SET idle_in_transaction_session_timeout = '100ms'`);
      await client.query('BEGIN');
      await client.query('SELECT 1');
      await waitFor(async () => (await h.db.pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0, {
        message: 'the idle transaction is terminated',
      });
      await expect(client.query('SELECT 1')).rejects.toThrow();
    } finally {
      await client.end().catch(() => undefined);
    }
  });

  // Connection pool: 100 agents claiming at once share the service's bounded pool (no connection
  // per agent) and all get their answer.
  it('Connection pooling handles concurrent agents', async () => {
    const team = await newTeam();
    const pool = h.apps[0].get<Pool>(PG_POOL);
    const max = (pool as unknown as { options: { max: number } }).options.max;
    await h.send(createTasks, { team, tasks: Array.from({ length: 100 }, (_, i) => ({ id: `p${i}`, subject: `P${i}` })) });
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, pool.totalCount)), 1);
    try {
      const claims = await Promise.all(Array.from({ length: 100 }, (_, i) => h.send(claimTask, { team, taskId: `p${i}`, owner: `agent-${i}` }, slow)));
      expect(new Set(claims.map((c) => c.owner)).size).toBe(100);
    } finally {
      clearInterval(sampler);
    }
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(max);
  });

  // Connection reuse: one agent's successive commands run on pooled connections, opening none.
  it('Connection reuse within same session', async () => {
    const team = await newTeam();
    const pool = h.apps[0].get<Pool>(PG_POOL);
    await h.send(createTasks, { team, tasks: Array.from({ length: 10 }, (_, i) => ({ id: `q${i}`, subject: `Q${i}` })) });
    // Warm the pool to its size first, so background pollers never make it open one mid-test.
    await Promise.all(Array.from({ length: 20 }, () => h.send(listTasks, { team })));
    let opened = 0;
    const onConnect = () => opened++;
    pool.on('connect', onConnect);
    try {
      for (let i = 0; i < 10; i++) {
        await h.send(claimTask, { team, taskId: `q${i}`, owner: 'agent:default:teammate:same-session' });
        await h.send(completeTask, { team, taskId: `q${i}`, owner: 'agent:default:teammate:same-session' });
      }
    } finally {
      pool.off('connect', onConnect);
    }
    expect(opened).toBe(0);
  });

  it('Atomic task claiming prevents race conditions, with two team-manager instances', async () => {
    if (h.apps.length < 2) await h.addInstance();
    await claimRace(await newTeam('race2'), 20, 50);
  });

  it('with two instances sweeping, an expired lease is recorded once per attempt', async () => {
    if (h.apps.length < 2) await h.addInstance();
    const team = await newTeam();
    await h.send(createTasks, { team, tasks: Array.from({ length: 5 }, (_, i) => ({ id: `e${i}`, subject: `E${i}` })) });
    await Promise.all(Array.from({ length: 5 }, (_, i) => h.send(claimTask, { team, taskId: `e${i}`, owner: 'con', leaseMs: 200 })));
    await board(team, { status: 'pending' }, (t) => t.length === 5 && t.every((x) => x.attempts === 1));
    const { rows } = await h.db.pool.query(
      `SELECT stream_id, count(*) FILTER (WHERE type = 'task.lease-expired')::int AS expiries FROM team_manager.events WHERE stream_id LIKE $1 GROUP BY stream_id`,
      [`task-${team}.%`],
    );
    expect(rows.map((r) => r.expiries)).toEqual([1, 1, 1, 1, 1]);
  });
});
