import { join } from 'node:path';
import { startEvalRun } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slowSimulatorEnv, startOrchestratorCrashHarness, type OrchestratorCrashHarness } from '../testing/orchestrator-crash-harness';

const SUITE = `
name: crash
tasks:
  - id: first
    prompt: Write the release notes to NOTES.md.
    graders:
      - { type: file, path: NOTES.md, matches: "^# Release notes$" }
  - id: second
    prompt: Write the release notes; the check greps them.
    graders:
      - { type: command, command: "grep -q 'Release notes' NOTES.md" }
      - { type: rubric, rubric: "The notes list at least one change." }
`;

/**
 * The orchestrator as a real process, killed with SIGKILL (no shutdown hook runs) during an eval
 * run of two tasks — once the first task's ask has started, and again once the second's has — and
 * started again each time. The run must resume at the task its stream names: each task's ask
 * started once, each task graded once, the run completed once with every task passed.
 */
describe('orchestrator killed mid-eval-run', () => {
  let h: OrchestratorCrashHarness;

  /** How many events of `type` the run's stream and its tasks' asks hold. */
  const count = async (evalRunId: string, type: string) =>
    Number(
      (await h.db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM orchestrator.events WHERE type = $1 AND (stream_id = $2 OR stream_id LIKE $3)`, [type, `evalrun-${evalRunId}`, `ask-${evalRunId}-t%`])).rows[0].n,
    );

  const crashWhen = (evalRunId: string, what: string, seen: () => Promise<boolean>) =>
    h.crashWhen(what, seen, async () => expect(await count(evalRunId, 'eval.run-completed')).toBe(0));

  beforeAll(async () => {
    h = await startOrchestratorCrashHarness({ label: 'evalcrash', files: { 'projects/notes/README.md': '# notes\n', 'projects/notes/evals/crash.yaml': SUITE }, orchestratorEnv: (scratch) => ({ ...slowSimulatorEnv(scratch), HS_SIMULATOR_SCENARIOS: join(__dirname, '..', '..', '..', '..', 'libs', 'llm', 'scenarios') }) });
  }, 120_000);

  afterAll(async () => h?.close());

  it('killed inside the first task and again inside the second, the run resumes at the right task and does nothing twice', async () => {
    const { evalRunId } = await request(h.nc, startEvalRun, { team: 'crash', workspace: join(h.scratch, 'projects', 'notes'), suite: 'evals/crash.yaml', model: 'sonnet' }, { timeoutMs: 30_000 });

    await crashWhen(evalRunId, 'the first task’s ask to start', async () => (await count(evalRunId, 'ask.started')) > 0);
    await crashWhen(evalRunId, 'the second task to start', async () => (await count(evalRunId, 'eval.task-started')) > 1);

    const completed = await waitFor(
      async () => (await h.db.pool.query<{ data: Record<string, unknown> }>(`SELECT data FROM orchestrator.events WHERE stream_id = $1 AND type = 'eval.run-completed'`, [`evalrun-${evalRunId}`])).rows[0],
      { timeoutMs: 180_000, intervalMs: 200, message: 'the eval run to complete' },
    );
    const grades = (await h.db.pool.query(`SELECT data FROM orchestrator.events WHERE stream_id = $1 AND type = 'eval.task-graded'`, [`evalrun-${evalRunId}`])).rows;
    expect(completed.data, JSON.stringify(grades)).toMatchObject({ passed: 2, total: 2 });

    // Each task: one ask, started and completed once, graded once; one completion.
    for (const type of ['ask.started', 'ask.completed', 'eval.task-started', 'eval.task-graded']) expect(await count(evalRunId, type), type).toBe(2);
    expect(await count(evalRunId, 'eval.run-completed')).toBe(1);
  }, 420_000);
});
