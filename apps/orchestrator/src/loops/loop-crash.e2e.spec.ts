import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startLoop } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrchestratorCrashHarness, type OrchestratorCrashHarness } from '../testing/orchestrator-crash-harness';

const LOGIN_CHECK = `grep -q "await compare" login.mjs || { echo "AssertionError: login accepted a wrong password"; exit 1; }`;

/**
 * The orchestrator as a real process, killed with SIGKILL (no shutdown hook runs) during a loop of
 * two iterations (any-loop-learnings.yaml) — once iteration 1's session made its first model call,
 * and again once iteration 2 began — and started again each time. The loop must resume at the
 * iteration its stream names: two iterations, each begun, checkpointed and ended once, the
 * learning of the first in the prompt of the second, and success.
 */
describe('orchestrator killed mid-loop', () => {
  let h: OrchestratorCrashHarness;

  /** How many events of `type` the loop's streams (its own and its sessions') hold. */
  const count = async (loopId: string, type: string) =>
    Number(
      (await h.db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM orchestrator.events WHERE type = $1 AND (stream_id = $2 OR stream_id LIKE $3)`, [type, `loop-${loopId}`, `session-${loopId}.%`])).rows[0]
        .n,
    );

  const crashWhen = (loopId: string, what: string, seen: () => Promise<boolean>) =>
    h.crashWhen(what, seen, async () => expect(await count(loopId, 'loop.stopped')).toBe(0));

  beforeAll(async () => {
    h = await startOrchestratorCrashHarness({ label: 'loopcrash', files: { 'projects/login/README.md': '# login\n' } });
  }, 120_000);

  afterAll(async () => h?.close());

  it('killed inside iteration 1 and again at the start of iteration 2, the loop resumes at the right iteration and does nothing twice', async () => {
    const { loopId } = await request(
      h.nc,
      startLoop,
      { team: 'crash', task: 'fix the login check', workspace: join(h.scratch, 'projects', 'login'), check: LOGIN_CHECK, maxIterations: 4 },
      { timeoutMs: 30_000 },
    );

    await crashWhen(loopId, 'iteration 1’s first model call', async () => (await count(loopId, 'session.model-called')) > 0);
    await crashWhen(loopId, 'iteration 2 to begin', async () => (await count(loopId, 'loop.iteration-started')) > 1);

    const stopped = await waitFor(
      async () => (await h.db.pool.query<{ data: Record<string, unknown> }>(`SELECT data FROM orchestrator.events WHERE stream_id = $1 AND type = 'loop.stopped'`, [`loop-${loopId}`])).rows[0],
      { timeoutMs: 180_000, intervalMs: 200, message: 'the loop to stop' },
    );
    expect(stopped.data).toMatchObject({ reason: 'succeeded' });

    // Two iterations, each begun, run as one session and ended once; one stop.
    for (const type of ['loop.iteration-started', 'loop.iteration-ended', 'session.started', 'session.ended']) expect(await count(loopId, type), type).toBe(2);
    expect(await count(loopId, 'loop.stopped')).toBe(1);
    const { rows: dupes } = await h.db.pool.query(
      `SELECT data->>'toolUseId' AS id, count(*) FROM orchestrator.events WHERE type = 'session.tool-called' AND stream_id LIKE $1 GROUP BY 1 HAVING count(*) > 1`,
      [`session-${loopId}.%`],
    );
    expect(dupes).toEqual([]);

    // The second session read the first one's learning.
    const { rows: prompts } = await h.db.pool.query<{ prompt: string }>(`SELECT data->>'prompt' AS prompt FROM orchestrator.events WHERE type = 'session.started' AND stream_id = $1`, [`session-${loopId}.loop.i2`]);
    expect(prompts[0].prompt).toContain('bcrypt.compare is async: always await it (iteration 1)');

    // One checkpoint commit per iteration on the loop's branch.
    const { rows: started } = await h.db.pool.query<{ data: { dir: string; branch: string } }>(`SELECT data FROM orchestrator.events WHERE stream_id = $1 AND type = 'loop.iteration-started' LIMIT 1`, [`loop-${loopId}`]);
    const { dir, branch } = started[0].data;
    const subjects = execFileSync('git', ['-C', dir, 'log', '--format=%s', branch], { encoding: 'utf8' }).split('\n').filter((s) => s.startsWith(`loop ${loopId} iteration`));
    expect(subjects).toHaveLength(2);
  }, 420_000);
});
