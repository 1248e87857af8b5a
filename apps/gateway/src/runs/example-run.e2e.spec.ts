import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseTestClient } from '../stream/testing/sse-test-client';
import type { GatewayHarness } from '../testing/gateway-harness';
import { REPO_ROOT as repo, startRunHarness, type RunHarness } from './testing/run-harness';

let run: RunHarness;
let h: GatewayHarness;

beforeAll(async () => {
  run = await startRunHarness({ label: 'examplerun', scenarios: 'word-stats' });
  h = run.h;
}, 120_000);
afterAll(async () => {
  await run?.close();
});

describe('the example run on the simulator', () => {
  it('goes workshop → spec → tasks → build → QA (a failure sent back and fixed) → review, ending with the change committed and the project’s tests passing', async () => {
    await h.http().listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.http().server.address() as { port: number };
    const story = await SseTestClient.open(`http://127.0.0.1:${port}/api/v1/stream?team=word-stats&types=run.*`, { authorization: `Bearer ${h.adminToken}` });
    const goal = await readFile(join(repo, 'examples', 'word-stats', 'GOAL.md'), 'utf8');
    const started = await h.call(
      { method: 'POST', url: '/api/v1/teams/word-stats/runs', payload: { goal, source: join(repo, 'examples', 'word-stats'), mode: 'v3', operator: 'auto' }, headers: { 'idempotency-key': 'example-run-1' } },
      h.adminToken,
    );
    expect(started.statusCode).toBe(201);
    const { runId } = started.json() as { runId: string };

    const view = await run.until('word-stats', runId, (v) => v.phase === 'completed', 'the example run to complete');

    expect(view).toMatchObject({ simulated: true, verdict: 'done', qaRounds: 2 });
    expect(view.tasks.map((t) => [t.key, t.status, t.origin])).toEqual([
      ['T1', 'merged', 'plan'],
      ['T2', 'merged', 'plan'],
      ['F1-1', 'merged', 'qa-fix'],
    ]);
    const author = view.tasks.find((t) => t.key === 'T1')!.persona;
    expect(view.tasks.find((t) => t.key === 'F1-1')!.persona).toBe(author);

    // The result: committed on the run branch, and the example's own tests pass there.
    const dir = view.resultDir!;
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' })).toBe('');
    const log = execFileSync('git', ['log', '--format=%s', view.branch!], { cwd: dir, encoding: 'utf8' });
    expect(log).toContain('Merge F1-1');
    const tests = execFileSync(process.execPath, ['--test'], { cwd: dir, encoding: 'utf8' });
    expect(tests).toMatch(/(ℹ|#) fail 0/);
    expect(tests).toMatch(/(ℹ|#) pass 1[0-9]/);
    const cli = execFileSync(process.execPath, ['bin/word-stats.js'], { cwd: dir, input: 'b a b', encoding: 'utf8' });
    expect(cli).toBe('2 b\n1 a\n');

    // The SSE stream tells the run's story in order, a human-legible line per step.
    const lines = await waitFor(() => {
      const all = story.messages.map((m) => `${m.event} | ${m.json<{ summary: string }>().summary}`);
      return all.some((l) => l.startsWith('run.completed')) ? all : undefined;
    }, { timeoutMs: 30_000, message: 'run.completed on the stream' });
    story.close();
    const first = (type: string) => lines.findIndex((l) => l.startsWith(`${type} |`));
    const order = ['run.started', 'run.spec-accepted', 'run.tasks-added', 'run.task-merged', 'run.qa-reported', 'run.review-reported', 'run.completed'].map(first);
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(lines.some((l) => /Con finished T1 'Add topWords/.test(l))).toBe(true);
    expect(lines.every((l) => !/ \| Run [a-z-]+$/i.test(l))).toBe(true);

    // Costs are attributed per persona of the run.
    const spend = await h.call({ method: 'GET', url: `/api/v1/usage/spend?team=word-stats&project=${runId}&groupBy=persona` }, h.adminToken);
    const personas = (spend.json() as { groups: Array<{ key: string; costMicros: string }> }).groups.map((g) => g.key).sort();
    expect(personas).toEqual(expect.arrayContaining(['gavin', 'robbo', 'verner', author]));
  });

  const operatorTasks = [
    { key: 'T1', subject: 'Add topWords(text, n) to src/word-stats.js', pool: 'backend', acceptanceCriteria: ['Most frequent first, ties alphabetical'], dependsOn: [] },
    { key: 'T2', subject: 'Add the bin/word-stats.js command-line entry', pool: 'backend', acceptanceCriteria: ["Prints 'count word' lines"], dependsOn: ['T1'] },
  ];
  const api = (method: 'GET' | 'POST', url: string, payload?: unknown) => h.call({ method, url, ...(payload ? { payload } : {}) }, h.adminToken);
  const until = (...args: Parameters<RunHarness['until']>) => run.until(...args);

  it('v1: the operator writes the tasks, there is no decomposition, and the run completes on them', async () => {
    const goal = await readFile(join(repo, 'examples', 'word-stats', 'GOAL.md'), 'utf8');
    const res = await api('POST', '/api/v1/teams/word-stats-v1/runs', { goal, source: join(repo, 'examples', 'word-stats'), mode: 'v1', operator: 'auto', tasks: operatorTasks });
    expect(res.statusCode).toBe(201);
    const { runId } = res.json() as { runId: string };
    const view = await until('word-stats-v1', runId, (v) => v.phase === 'completed', 'the v1 run to complete');
    expect(view.tasks.map((t) => [t.key, t.origin])).toEqual([
      ['T1', 'plan'],
      ['T2', 'plan'],
      ['F1-1', 'qa-fix'],
    ]);
    const sessions = await h.db.pool.query(`SELECT count(*)::int AS n FROM orchestrator.events WHERE type = 'run.session-started' AND stream_id = $1 AND data->>'purpose' = 'decompose'`, [`run-${runId}`]);
    expect(sessions.rows[0].n).toBe(0);
  });

  it('v2: the operator accepts the spec, edits Gavin’s plan, and the edited plan is what gets built', async () => {
    const goal = await readFile(join(repo, 'examples', 'word-stats', 'GOAL.md'), 'utf8');
    const res = await api('POST', '/api/v1/teams/word-stats-v2/runs', { goal, source: join(repo, 'examples', 'word-stats'), mode: 'v2', operator: 'interactive' });
    const { runId } = res.json() as { runId: string };
    await until('word-stats-v2', runId, (v) => v.waitingFor === 'acceptance of the spec', 'the spec to wait for the operator');
    expect((await api('POST', `/api/v1/teams/word-stats-v2/runs/${runId}/answer`, { kind: 'spec', accept: true })).statusCode).toBe(200);
    await until('word-stats-v2', runId, (v) => v.phase === 'tasks-review', 'Gavin’s plan to wait for approval');
    const edited = [operatorTasks[0], { ...operatorTasks[1], subject: 'Add the bin/word-stats.js command-line entry (operator: stdin too)' }];
    expect((await api('POST', `/api/v1/teams/word-stats-v2/runs/${runId}/answer`, { kind: 'tasks', tasks: edited })).statusCode).toBe(200);
    const view = await until('word-stats-v2', runId, (v) => v.phase === 'completed', 'the v2 run to complete');
    expect(view.tasks.find((t) => t.key === 'T2')).toMatchObject({ subject: 'Add the bin/word-stats.js command-line entry (operator: stdin too)', status: 'merged' });
  });
});
