import { createTestDatabase, startPgServer, waitFor, type PgServerHandle } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from '../testing/gateway-harness';

const TEAMS = ['outage-a', 'outage-b', 'outage-c'];

interface Answer {
  status: number;
  code?: string;
  retryAfter?: string;
}

/**
 * PostgreSQL stopped at once (`pg_ctl stop -m immediate`, as a crash or `restart -m immediate` does)
 * and started again while commands keep coming through the gateway. The cluster is the spec's own:
 * the shared server is untouched.
 */
describe('a PostgreSQL restart under load', () => {
  let pg: PgServerHandle;
  let h: GatewayHarness;
  let op: string;
  // In the services' processes these end the process; here they would end the worker.
  const crashes: unknown[] = [];
  const onCrash = (error: unknown) => crashes.push(error);

  beforeAll(async () => {
    process.on('uncaughtException', onCrash);
    process.on('unhandledRejection', onCrash);
    pg = await startPgServer();
    const db = await createTestDatabase('dbout', { adminUrl: pg.url });
    h = await startGatewayHarness({ label: 'dbout', db, costGovernor: true, orchestrator: true });
    op = await h.issueToken('operator', TEAMS);
    for (const name of TEAMS) expect((await h.call({ method: 'POST', url: '/api/v1/teams', payload: { name } }, op)).statusCode).toBe(201);
  });
  afterAll(async () => {
    await h?.close();
    await pg?.dispose();
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
  });

  const ready = async () => (await h.call({ method: 'GET', url: '/health/ready' })).statusCode;

  it('keeps the services up: commands during the outage answer 503 DATABASE.UNAVAILABLE with Retry-After, and after it nothing acknowledged is lost', async () => {
    const acked = new Map<string, string>(); // task id → team
    const answers: Answer[] = [];
    let loading = true;
    const worker = async (team: string) => {
      for (let n = 0; loading; n++) {
        const id = `${team}-${n}`;
        const res = await h.call({ method: 'POST', url: `/api/v1/teams/${team}/tasks`, payload: { id, subject: `task ${n}` } }, op);
        const answer: Answer = { status: res.statusCode };
        if (res.statusCode === 201) acked.set(id, team);
        else {
          answer.code = res.json().code;
          answer.retryAfter = res.headers['retry-after'] as string | undefined;
          // A client backing off before its next command, not a wait for state.
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        answers.push(answer);
      }
    };
    const load = Promise.all(TEAMS.map(worker));
    try {
      await waitFor(() => acked.size >= 30, { message: 'commands acknowledged before the outage' });

      await pg.stop('immediate');
      const outageFrom = answers.length;
      await waitFor(() => answers.slice(outageFrom).some((a) => a.status === 503), { message: 'a command refused during the outage' });
      expect(await ready()).toBe(503);

      const ackedBefore = acked.size;
      await pg.start();
      await waitFor(() => acked.size >= ackedBefore + 30, { timeoutMs: 30_000, message: 'commands acknowledged after the restart' });
    } finally {
      loading = false;
      await load;
    }

    expect(crashes).toEqual([]);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused.length).toBeGreaterThan(0);
    // Every refusal is the retryable one: never a 500, never a client error.
    expect(refused.filter((a) => a.status !== 503 || a.code !== 'DATABASE.UNAVAILABLE' || a.retryAfter === undefined)).toEqual([]);
    await waitFor(async () => (await ready()) === 200, { message: 'ready again' });

    // The task board projection catches up with every acknowledged task; the log holds each once.
    for (const team of TEAMS) {
      const wanted = [...acked].filter(([, t]) => t === team).map(([id]) => id);
      await waitFor(
        async () => {
          const res = await h.call({ method: 'GET', url: `/api/v1/teams/${team}/tasks?limit=500` }, op);
          if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
          const seen = new Set((res.json().items as { taskId: string }[]).map((t) => t.taskId));
          return wanted.every((id) => seen.has(id));
        },
        { timeoutMs: 30_000, message: `the task board of ${team} shows every acknowledged task` },
      );
    }
    const { rows } = await h.db.pool.query<{ id: string; n: number }>(
      `SELECT stream_id AS id, count(*)::int AS n FROM team_manager.events WHERE type = 'task.created' GROUP BY stream_id`,
    );
    expect(rows.filter((r) => r.n !== 1)).toEqual([]);
    expect(rows.length).toBeGreaterThanOrEqual(acked.size);
  });
});
