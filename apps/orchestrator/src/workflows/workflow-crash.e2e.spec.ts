import { join } from 'node:path';
import { startWorkflow } from '@headspace/contracts';
import { request } from '@headspace/messaging';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOrchestratorCrashHarness, type OrchestratorCrashHarness } from '../testing/orchestrator-crash-harness';

/**
 * The orchestrator as a real process, killed with SIGKILL (no shutdown hook runs) during a
 * three-stage pipeline — right after the first stage ended, and again once the second stage was
 * recorded as started — and started again each time. The pipeline must finish with every stage run
 * by exactly one ask, the finished stage never run again.
 */
describe('orchestrator killed between the stages of a pipeline', () => {
  let h: OrchestratorCrashHarness;

  const events = async (workflowId: string, type: string) =>
    (await h.db.pool.query<{ stream_id: string; data: Record<string, unknown> }>(`SELECT stream_id, data FROM orchestrator.events WHERE type = $1 AND (stream_id = $2 OR stream_id LIKE $3) ORDER BY global_position`, [type, `workflow-${workflowId}`, `ask-${workflowId}--%`])).rows;

  beforeAll(async () => {
    h = await startOrchestratorCrashHarness({ label: 'wfcrash', files: { 'projects/demo/README.md': '# Demo\n' } });
  }, 120_000);

  afterAll(async () => h?.close());

  it('killed after the first stage ended and again once the second started, the pipeline resumes at the right stage and runs each stage once', async () => {
    const { workflowId } = await request(
      h.nc,
      startWorkflow,
      {
        team: 'crash',
        workspace: join(h.scratch, 'projects', 'demo'),
        definition: {
          name: 'crash pipeline',
          mode: 'pipeline',
          steps: [
            { id: 'plan', prompt: '[wf plan] plan it' },
            { id: 'build', prompt: '[wf left] build from {{ steps.plan.output }}' },
            { id: 'finish', prompt: '[wf right] finish after {{ steps.build.output }}' },
          ],
        },
      },
      { timeoutMs: 30_000 },
    );

    await h.crashWhen('the first stage to end', async () => (await events(workflowId, 'workflow.step-ended')).length > 0);
    await h.crashWhen('the second stage to start', async () => (await events(workflowId, 'workflow.step-started')).some((e) => e.data.stepId === 'build'));

    const ended = await waitFor(async () => (await events(workflowId, 'workflow.ended'))[0], { timeoutMs: 180_000, intervalMs: 200, message: 'the workflow to end' });
    expect(ended.data).toMatchObject({ status: 'succeeded' });

    // Each stage started once, ended once, in order; one ask and one session each.
    const started = await events(workflowId, 'workflow.step-started');
    expect(started.map((e) => [e.data.stepId, e.data.attempt])).toEqual([
      ['plan', 1],
      ['build', 1],
      ['finish', 1],
    ]);
    expect((await events(workflowId, 'workflow.step-ended')).map((e) => [e.data.stepId, e.data.status])).toEqual([
      ['plan', 'succeeded'],
      ['build', 'succeeded'],
      ['finish', 'succeeded'],
    ]);
    expect((await events(workflowId, 'ask.started')).map((e) => e.stream_id)).toEqual(['plan', 'build', 'finish'].map((s) => `ask-${workflowId}--${s}--a1`));
    expect(await events(workflowId, 'ask.completed')).toHaveLength(3);
    const { rows } = await h.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM orchestrator.events WHERE type = 'session.started' AND stream_id LIKE $1`, [`session-${workflowId}--%`]);
    expect(rows[0].n).toBe(3);
    expect(String(started[2].data.prompt)).toContain('LEFT-OUTPUT');
  }, 420_000);
});
