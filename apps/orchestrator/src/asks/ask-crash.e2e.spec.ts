import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startAsk } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrchestratorCrashHarness, type OrchestratorCrashHarness } from '../testing/orchestrator-crash-harness';

const TYPO = '# Demo\n\nThis is teh demo project.\n';

/**
 * The orchestrator as a real process, killed with SIGKILL (no shutdown hook runs) twice during an
 * ask — once its session is recorded, and again right after the agent's first tool call — and
 * started again each time; the team-manager and cost governor keep running. The ask must still
 * complete with one session, no tool call recorded twice, and the fix on its branch.
 */
describe('orchestrator killed mid-ask', () => {
  let h: OrchestratorCrashHarness;

  /** How many events of `type` the ask's streams (its own and its session's) hold. */
  const count = async (askId: string, type: string) =>
    Number(
      (await h.db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM orchestrator.events WHERE type = $1 AND (stream_id = $2 OR stream_id LIKE $3)`, [type, `ask-${askId}`, `session-${askId}.%`]))
        .rows[0].n,
    );

  const crashWhen = (askId: string, what: string, seen: () => Promise<boolean>) =>
    h.crashWhen(what, seen, async () => expect(await count(askId, 'ask.completed')).toBe(0));

  beforeAll(async () => {
    h = await startOrchestratorCrashHarness({ label: 'askcrash', files: { 'projects/demo/README.md': TYPO } });
  }, 120_000);

  afterAll(async () => h?.close());

  it('killed once its session is recorded and again after the first tool call, the ask completes once with the fix and nothing done twice', async () => {
    const { askId } = await request(h.nc, startAsk, { team: 'crash', prompt: 'fix the typo in README.md', workspace: join(h.scratch, 'projects', 'demo') }, { timeoutMs: 30_000 });

    await crashWhen(askId, 'the ask’s session to be recorded', async () => (await count(askId, 'ask.session-started')) > 0);
    await crashWhen(askId, 'the agent’s first tool call', async () => (await count(askId, 'session.tool-called')) > 0);

    const ended = await waitFor(
      async () => (await h.db.pool.query<{ type: string; data: Record<string, unknown> }>(`SELECT type, data FROM orchestrator.events WHERE stream_id = $1 AND type IN ('ask.completed', 'ask.failed')`, [`ask-${askId}`])).rows[0],
      { timeoutMs: 180_000, intervalMs: 200, message: 'the ask to end' },
    );
    expect(ended).toMatchObject({ type: 'ask.completed', data: { filesChanged: ['README.md'] } });

    // One session, started once; no tool call recorded twice; one outcome.
    expect(await count(askId, 'ask.session-started')).toBe(1);
    expect(await count(askId, 'session.started')).toBe(1);
    expect(await count(askId, 'session.ended')).toBe(1);
    expect(await count(askId, 'ask.completed')).toBe(1);
    const { rows: dupes } = await h.db.pool.query(
      `SELECT data->>'toolUseId' AS id, count(*) FROM orchestrator.events WHERE type = 'session.tool-called' AND stream_id LIKE $1 GROUP BY 1 HAVING count(*) > 1`,
      [`session-${askId}.%`],
    );
    expect(dupes).toEqual([]);

    // The fix is on the ask's branch, once.
    const d = ended!.data as { dir: string; branch: string };
    expect(execFileSync('git', ['-C', d.dir, 'show', `${d.branch}:README.md`], { encoding: 'utf8' })).toBe('# Demo\n\nThis is the demo project.\n');
    expect(await readFile(join(h.scratch, 'projects', 'demo', 'README.md'), 'utf8')).toBe(TYPO);
  }, 420_000);
});
