import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorkflowView } from '@headspace/contracts';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real gateway, orchestrator, team-manager and cost governor in-process; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { REPO_ROOT, startRunHarness, type RunHarness } from '../../../gateway/src/runs/testing/run-harness';

const BIN = join(REPO_ROOT, 'bin', 'headspace.js');

/** a → (b, c in parallel) → d; d's prompt is made of b's and c's outputs (scripts: libs/llm/scenarios/any-workflow-*.yaml). */
const DIAMOND = `name: diamond
steps:
  - id: a
    prompt: "[wf plan] plan the two halves"
  - id: b
    needs: [a]
    prompt: "[wf left] build the left half of {{ steps.a.output }}"
  - id: c
    needs: [a]
    prompt: "[wf right] build the right half"
  - id: d
    needs: [b, c]
    prompt: "[wf merge] join {{ steps.b.output }} with {{ steps.c.output }}"
`;

describe('workflows: a DAG or a pipeline of asks, through the gateway and the CLI, on the simulator', { timeout: 300_000 }, () => {
  let run: RunHarness;
  let endpoint: string;
  let project: string;
  const h = () => run.h;
  const workflowEvents = async () => Number((await h().db.pool.query(`SELECT count(*)::int AS n FROM orchestrator.events WHERE stream_id LIKE 'workflow-%'`)).rows[0].n);
  const post = (payload: unknown, team = 'demo') => h().call({ method: 'POST', url: `/api/v1/teams/${team}/workflows`, payload: payload as Record<string, unknown> }, h().adminToken);
  const view = async (workflowId: string, team = 'demo') => (await h().call({ method: 'GET', url: `/api/v1/teams/${team}/workflows/${workflowId}` }, h().adminToken)).json() as WorkflowView;
  const ended = (workflowId: string) =>
    waitFor(async () => ((v) => (v.status === 'running' ? undefined : v))(await view(workflowId)), { timeoutMs: 180_000, intervalMs: 250, message: `workflow ${workflowId} to end` });
  const step = (v: WorkflowView, id: string) => v.steps.find((s) => s.id === id)!;
  const asksOf = async (workflowId: string) =>
    (await h().db.pool.query<{ stream_id: string }>(`SELECT stream_id FROM orchestrator.events WHERE type = 'ask.started' AND stream_id LIKE $1 ORDER BY stream_id`, [`ask-${workflowId}--%`])).rows.map((r) => r.stream_id);

  beforeAll(async () => {
    run = await startRunHarness({ label: 'workflows', sourceRoots: true });
    project = join(run.dir, 'projects', 'demo');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'README.md'), '# Demo\n');
    await writeFile(join(project, 'diamond.yaml'), DIAMOND);
    await h().http().listen({ port: 0, host: '127.0.0.1' });
    endpoint = `http://127.0.0.1:${(h().http().server.address() as { port: number }).port}`;
  }, 120_000);

  afterAll(async () => {
    await run?.close();
  });

  const cli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((done) => {
      execFile(
        process.execPath,
        [BIN, ...args],
        { env: { ...process.env, HEADSPACE_CONFIG: join(run.dir, 'cli.json'), HEADSPACE_URL: endpoint, HEADSPACE_TOKEN: h().adminToken, NO_COLOR: '1' }, timeout: 240_000 },
        (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  it('`headspace workflow run diamond.yaml`: a, then b and c at the same time, then d with both their outputs in its prompt; each step one ask', async () => {
    const out = await cli(['workflow', 'run', join(project, 'diamond.yaml'), '-w', project]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const workflowId = /^workflow (\S+) started$/m.exec(out.stdout)![1];
    expect(out.stdout).toMatch(new RegExp(`^workflow ${workflowId} \\(diamond, dag\\) succeeded {2}\\[simulated\\]$`, 'm'));
    expect(out.stdout).toMatch(/^ {2}d +succeeded .*MERGED-OUTPUT/m);

    const v = await view(workflowId);
    expect(v).toMatchObject({ status: 'succeeded', mode: 'dag', simulated: true });
    expect(v.steps.map((s) => [s.id, s.status, s.attempts])).toEqual([
      ['a', 'succeeded', 1],
      ['b', 'succeeded', 1],
      ['c', 'succeeded', 1],
      ['d', 'succeeded', 1],
    ]);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((id) => step(v, id));
    const t = (s: string | null) => Date.parse(s!);
    // b and c overlap in time, both after a, both before d.
    expect(t(b.startedAt)).toBeLessThan(t(c.endedAt));
    expect(t(c.startedAt)).toBeLessThan(t(b.endedAt));
    expect(t(b.startedAt)).toBeGreaterThanOrEqual(t(a.endedAt));
    expect(t(c.startedAt)).toBeGreaterThanOrEqual(t(a.endedAt));
    expect(t(d.startedAt)).toBeGreaterThanOrEqual(Math.max(t(b.endedAt), t(c.endedAt)));
    // d's prompt holds b's and c's outputs (and so its script, which needs both, answered).
    expect(b.output).toContain('LEFT-OUTPUT');
    expect(d.prompt).toContain(b.output!.trim());
    expect(d.prompt).toContain(c.output!.trim());
    expect(step(v, 'b').prompt).toContain('PLAN-OUTPUT');
    expect(d.output).toContain('MERGED-OUTPUT');
    // One ask per step: nothing ran twice.
    expect(await asksOf(workflowId)).toEqual(['a', 'b', 'c', 'd'].map((id) => `ask-${workflowId}--${id}--a1`));

    // The list (a read model: waited for) and `headspace workflow list` show it.
    const page = async () => (await h().call({ method: 'GET', url: '/api/v1/teams/demo/workflows' }, h().adminToken)).json() as { items: Array<{ workflowId: string; status: string }> };
    await waitFor(async () => (await page()).items.find((w) => w.workflowId === workflowId && w.status === 'succeeded'), {
      timeoutMs: 10_000,
      message: 'the workflows list to show the workflow ended',
    });
    const listed = await cli(['workflow', 'list', '-t', 'demo']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(workflowId);
  });

  it('a three-stage pipeline runs its stages one after another, each given the output of the one before', async () => {
    const res = await post({
      workspace: project,
      definition: {
        name: 'three stages',
        mode: 'pipeline',
        steps: [
          { id: 'plan', prompt: '[wf plan] plan it' },
          { id: 'build', prompt: '[wf left] build from {{ steps.plan.output }}' },
          { id: 'finish', prompt: '[wf right] finish after {{ steps.build.output }}' },
        ],
      },
    });
    expect(res.statusCode).toBe(201);
    const v = await ended((res.json() as { workflowId: string }).workflowId);
    expect(v.status).toBe('succeeded');
    expect(v.steps.map((s) => [s.id, s.needs, s.status])).toEqual([
      ['plan', [], 'succeeded'],
      ['build', ['plan'], 'succeeded'],
      ['finish', ['build'], 'succeeded'],
    ]);
    const [plan, build, finish] = v.steps;
    expect(Date.parse(build.startedAt!)).toBeGreaterThanOrEqual(Date.parse(plan.endedAt!));
    expect(Date.parse(finish.startedAt!)).toBeGreaterThanOrEqual(Date.parse(build.endedAt!));
    expect(build.prompt).toContain('PLAN-OUTPUT');
    expect(finish.prompt).toContain('LEFT-OUTPUT');
    expect(finish.output).toContain('RIGHT-OUTPUT');
  });

  it('a failed attempt is retried; a step that keeps failing fails what needs it, runs its `when: failed` fallback and fails the workflow', async () => {
    const res = await post({
      workspace: project,
      definition: {
        name: 'flaky',
        steps: [
          { id: 'flaky', prompt: '[wf flaky] attempt {{ attempt }} of the flaky step', retries: 1 },
          { id: 'broken', prompt: '[wf flaky] attempt 1 every time', retries: 1 },
          { id: 'after', needs: ['broken'], prompt: '[wf plan] after broken' },
          { id: 'rescue', needs: ['broken'], when: { step: 'broken', status: 'failed' }, prompt: '[wf right] rescue' },
          { id: 'cheer', needs: ['flaky'], when: { step: 'flaky', status: 'succeeded', outputMatches: 'no such output' }, prompt: '[wf left] cheer' },
        ],
      },
    });
    expect(res.statusCode).toBe(201);
    const workflowId = (res.json() as { workflowId: string }).workflowId;
    const v = await ended(workflowId);
    expect(v.steps.map((s) => [s.id, s.status, s.attempts])).toEqual([
      ['flaky', 'succeeded', 2],
      ['broken', 'failed', 2],
      ['after', 'failed', 0],
      ['rescue', 'succeeded', 1],
      ['cheer', 'skipped', 0],
    ]);
    expect(step(v, 'after').reason).toBe('needs "broken", which failed');
    expect(step(v, 'cheer').reason).toMatch(/does not match/);
    expect(v).toMatchObject({ status: 'failed', reason: 'failed steps: broken, after' });
    expect(await asksOf(workflowId)).toEqual(
      ['broken--a1', 'broken--a2', 'flaky--a1', 'flaky--a2', 'rescue--a1'].map((s) => `ask-${workflowId}--${s}`),
    );
  });

  it('`headspace workflow cancel` stops a running workflow: no later step starts, and `status` shows it cancelled', async () => {
    const res = await post({
      workspace: project,
      definition: { name: 'to cancel', mode: 'pipeline', steps: [{ id: 'one', prompt: '[wf plan] one' }, { id: 'two', prompt: '[wf left] two' }, { id: 'three', prompt: '[wf right] three' }] },
    });
    expect(res.statusCode).toBe(201);
    const workflowId = (res.json() as { workflowId: string }).workflowId;
    const cancelled = await cli(['workflow', 'cancel', workflowId, '-t', 'demo']);
    expect(cancelled.stderr).toBe('');
    expect(cancelled.stdout).toBe(`workflow ${workflowId} cancelled\n`);
    // The stages started before the cancel landed (how many depends on the machine's pace) end on their own; none starts after it.
    await waitFor(
      async () => {
        for (const ask of await asksOf(workflowId)) {
          const { rows } = await h().db.pool.query(`SELECT 1 FROM orchestrator.events WHERE stream_id = $1 AND type IN ('ask.completed', 'ask.failed')`, [ask]);
          if (rows.length === 0) return undefined;
        }
        return true;
      },
      { timeoutMs: 60_000, message: 'the started stages’ asks to end' },
    );
    const status = await cli(['workflow', 'status', workflowId, '-t', 'demo']);
    expect(status.stdout).toMatch(new RegExp(`^workflow ${workflowId} \\(to cancel, pipeline\\) cancelled`, 'm'));
    const v = await view(workflowId);
    expect(v).toMatchObject({ status: 'cancelled', reason: 'cancelled by the operator' });
    const { rows: log } = await h().db.pool.query<{ type: string; data: { stepId?: string } }>(
      `SELECT type, data FROM orchestrator.events WHERE stream_id = $1 ORDER BY global_position`,
      [`workflow-${workflowId}`],
    );
    const cancelledAt = log.findIndex((e) => e.type === 'workflow.ended');
    expect(cancelledAt).toBeGreaterThan(0);
    expect(log.slice(cancelledAt + 1).filter((e) => e.type === 'workflow.step-started')).toEqual([]);
    const started = log.filter((e) => e.type === 'workflow.step-started').map((e) => e.data.stepId);
    for (const id of ['two', 'three'].filter((x) => !started.includes(x))) {
      expect(step(v, id).status).toBe('pending');
      expect(await asksOf(workflowId)).not.toContain(`ask-${workflowId}--${id}--a1`);
    }
  });

  it('a definition may come as YAML; a cycle in it is a 400 naming the field', async () => {
    const yaml = (steps: string) => `workspace: ${project}\ndefinition:\n  name: yaml\n  steps:\n${steps}`;
    const ok = await h().call(
      { method: 'POST', url: '/api/v1/teams/demo/workflows', headers: { 'content-type': 'application/yaml' }, payload: yaml('    - id: a\n      prompt: "[wf plan] from yaml"\n') },
      h().adminToken,
    );
    expect(ok.statusCode).toBe(201);
    expect((await ended((ok.json() as { workflowId: string }).workflowId)).status).toBe('succeeded');
    const before = await workflowEvents();
    const cyclic = await h().call(
      { method: 'POST', url: '/api/v1/teams/demo/workflows', headers: { 'content-type': 'application/yaml' }, payload: yaml('    - { id: a, prompt: p, needs: [b] }\n    - { id: b, prompt: p, needs: [a] }\n') },
      h().adminToken,
    );
    expect(cyclic.statusCode).toBe(400);
    expect(cyclic.json().field).toBe('definition.steps.0.needs');
    expect(await workflowEvents()).toBe(before);
  });

  it('a definition may be a file of the workspace; a bad one is a 400 naming the field, a missing one names `file`', async () => {
    await writeFile(join(project, 'one.yaml'), 'name: from file\nsteps:\n  - id: only\n    prompt: "[wf plan] from a file"\n');
    await writeFile(join(project, 'bad.yaml'), 'name: bad\nsteps:\n  - id: a\n    prompt: p\n    needs: [ghost]\n');
    const res = await post({ workspace: project, file: 'one.yaml' });
    expect(res.statusCode).toBe(201);
    const v = await ended((res.json() as { workflowId: string }).workflowId);
    expect(v).toMatchObject({ name: 'from file', status: 'succeeded' });
    const before = await workflowEvents();
    for (const [payload, field] of [
      [{ workspace: project, file: 'bad.yaml' }, 'definition.steps.0.needs.0'],
      [{ workspace: project, file: 'missing.yaml' }, 'file'],
      [{ workspace: project, file: '../outside.yaml' }, 'file'],
      [{ workspace: project }, 'definition'],
    ] as const) {
      const bad = await post(payload);
      expect({ field, status: bad.statusCode }).toEqual({ field, status: 400 });
      expect(bad.json().field).toBe(field);
    }
    expect(await workflowEvents()).toBe(before);
  });

  it('a bad definition is a 400 naming the field (an unknown or cyclic dependency too), and nothing is written', async () => {
    const before = await workflowEvents();
    const ok = { id: 'a', prompt: 'p' };
    for (const [definition, field] of [
      [{ name: 'x', steps: [ok, { id: 'b', prompt: 'p' }, { id: 'c', prompt: 'p', needs: ['nope'] }] }, 'definition.steps.2.needs.0'],
      [{ name: 'x', steps: [{ id: 'a', prompt: 'p', needs: ['b'] }, { id: 'b', prompt: 'p', needs: ['a'] }] }, 'definition.steps.0.needs'],
      [{ name: 'x', steps: [ok, { id: 'b', prompt: '{{ steps.a.output }}' }] }, 'definition.steps.1.prompt'],
      [{ name: 'x', steps: [{ id: 'a' }] }, 'definition.steps.0.prompt'],
      [{ name: 'x', steps: [{ ...ok, retries: 10 }] }, 'definition.steps.0.retries'],
      [{ name: 'x', steps: [] }, 'definition.steps'],
    ] as const) {
      const res = await post({ workspace: project, definition });
      expect({ field, status: res.statusCode }).toEqual({ field, status: 400 });
      expect(res.json().field).toBe(field);
    }
    const outside = await post({ workspace: '/etc', definition: { name: 'x', steps: [ok] } });
    expect(outside.statusCode).toBe(403);
    expect(outside.json().field).toBe('workspace');
    expect(await workflowEvents()).toBe(before);
  });
});
