import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findClaudeCli } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayHarness } from '../testing/gateway-harness';
import { REPO_ROOT as repo, startRunHarness, type RunHarness } from './testing/run-harness';

/**
 * The example run with every builder (con, al, may, mark) on the Claude Code runtime by their
 * persona default: the real CLI binary against the orchestrator's simulator. It must end as the
 * built-in run does (example-run.e2e.spec.ts).
 */

const BUILDERS = ['con', 'al', 'may', 'mark'];
let run: RunHarness;
let h: GatewayHarness;

beforeAll(async () => {
  const binary = findClaudeCli();
  if (binary === undefined) throw new Error('the @anthropic-ai/claude-code platform binary is not installed (npm ci)');
  run = await startRunHarness({ label: 'exampleruncc', scenarios: 'word-stats', env: { HS_CLAUDE_BINARY: binary } });
  h = run.h;
}, 120_000);
afterAll(async () => {
  await run?.close();
});

describe('the example run with its builders on Claude Code', () => {
  it('reaches the built-in run’s end: T1, T2 and the QA fix merged, QA passed on round 2, review done, the project’s tests passing', async () => {
    for (const persona of BUILDERS) {
      const res = await h.call({ method: 'PATCH', url: `/api/v1/personas/${persona}`, payload: { runtime: 'claude-code' } }, h.adminToken);
      expect(res.statusCode).toBe(200);
    }
    const goal = await readFile(join(repo, 'examples', 'word-stats', 'GOAL.md'), 'utf8');
    const started = await h.call(
      { method: 'POST', url: '/api/v1/teams/word-stats/runs', payload: { goal, source: join(repo, 'examples', 'word-stats'), mode: 'v3', operator: 'auto' }, headers: { 'idempotency-key': 'example-run-cc-1' } },
      h.adminToken,
    );
    expect(started.statusCode).toBe(201);
    const { runId } = started.json() as { runId: string };

    const view = await run.until('word-stats', runId, (v) => v.phase === 'completed', 'the example run to complete', 300_000);

    expect(view).toMatchObject({ simulated: true, verdict: 'done', qaRounds: 2 });
    expect(view.tasks.map((t) => [t.key, t.status, t.origin])).toEqual([
      ['T1', 'merged', 'plan'],
      ['T2', 'merged', 'plan'],
      ['F1-1', 'merged', 'qa-fix'],
    ]);
    const dir = view.resultDir!;
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' })).toBe('');
    const tests = execFileSync(process.execPath, ['--test'], { cwd: dir, encoding: 'utf8' });
    expect(tests).toMatch(/(ℹ|#) fail 0/);
    expect(execFileSync(process.execPath, ['bin/word-stats.js'], { cwd: dir, input: 'b a b', encoding: 'utf8' })).toBe('2 b\n1 a\n');

    // The builders' sessions ran on Claude Code, the others on the built-in runtime.
    const { rows } = await h.db.pool.query<{ kind: string; persona: string; runtime: string }>(
      `SELECT data->>'kind' AS kind, data->>'persona' AS persona, data->>'runtime' AS runtime FROM orchestrator.events WHERE type = 'session.started' AND data->>'runId' = $1`,
      [runId],
    );
    const builders = rows.filter((r) => r.kind === 'task');
    expect(builders.length).toBe(3);
    expect(builders.every((r) => r.runtime === 'claude-code' && BUILDERS.includes(r.persona))).toBe(true);
    expect(rows.filter((r) => r.kind !== 'task').every((r) => r.runtime === 'built-in')).toBe(true);
  });
});
