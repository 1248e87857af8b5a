import { execFile } from 'node:child_process';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MODEL_ALIASES } from '@headspace/agent-runtime';
import { summariseRunEvent, type RunStreamEvent, type RunView } from '@headspace/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The CLI's end-to-end test runs the real binary against the real services, booted in-process.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { REPO_ROOT, startRunHarness, type RunHarness } from '../../../../apps/gateway/src/runs/testing/run-harness';

const BIN = join(REPO_ROOT, 'bin', 'headspace.js');
/** A builder definition of the project: the word-stats builders' tools, on haiku, at most 30 turns. */
const BUILDER = `---
name: builder
description: Builds one task of a run with the workspace tools. Use for implementation tasks, e.g. "add topWords".
tools: Read, Write, Edit, Bash, Glob, Grep
model: haiku
maxTurns: 30
---
You build exactly what the task asks, with tests, and nothing else.
`;

type Session = RunView['sessions'][number];

/**
 * Run sessions routed by the cost governor (issue 24 scope 2): each session's model and effort
 * come from `route-model` on the session's signals unless pinned, the decision is recorded in
 * `run.session-started` before the session starts and shown in GET run and the event summaries;
 * `--agent <name>` runs the build sessions as a custom agent of the project.
 */
describe('run sessions routed by the governor; headspace run --agent', { timeout: 600_000 }, () => {
  let run: RunHarness;
  let endpoint: string;
  let project: string;
  const h = () => run.h;
  const post = (team: string, payload: Record<string, unknown>) => h().call({ method: 'POST', url: `/api/v1/teams/${team}/runs`, payload }, h().adminToken);
  const runEvents = async (runId: string) =>
    (await h().db.pool.query(`SELECT type, data FROM orchestrator.events WHERE stream_id = $1 ORDER BY stream_version`, [`run-${runId}`])).rows as RunStreamEvent[];
  const sessionStarts = async (runId: string) =>
    new Map((await h().db.pool.query(`SELECT data FROM orchestrator.events WHERE type = 'session.started' AND data->>'runId' = $1`, [runId])).rows.map((r) => [r.data.sessionId as string, r.data as Record<string, unknown>]));
  const startedRuns = async () => Number((await h().db.pool.query(`SELECT count(*)::int AS n FROM orchestrator.events WHERE type = 'run.started'`)).rows[0].n);
  const first = (view: RunView, pred: (s: Session) => boolean) => view.sessions.find(pred)!;
  const goal = () => readFile(join(project, 'GOAL.md'), 'utf8');

  beforeAll(async () => {
    run = await startRunHarness({ label: 'runroute', scenarios: 'word-stats', sourceRoots: true });
    project = join(run.dir, 'projects', 'word-stats');
    await cp(join(REPO_ROOT, 'examples', 'word-stats'), project, { recursive: true });
    await mkdir(join(project, '.headspace', 'agents'), { recursive: true });
    await writeFile(join(project, '.headspace', 'agents', 'builder.md'), BUILDER);
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
        { env: { ...process.env, HEADSPACE_CONFIG: join(run.dir, 'cli.json'), HEADSPACE_URL: endpoint, HEADSPACE_TOKEN: h().adminToken, NO_COLOR: '1' }, timeout: 300_000 },
        (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  it('routes each session on its own signals — a trivial task on haiku, a risky one on opus at deep effort — records why before it starts, and starts it on that model', async () => {
    const tasks = [
      { key: 'T1', subject: 'Add topWords(text, n) to src/word-stats.js', pool: 'backend', acceptanceCriteria: ['Most frequent first, ties alphabetical'], dependsOn: [] },
      { key: 'T2', subject: 'Refactor the bin/word-stats.js entry for security: validate its arguments', pool: 'backend', acceptanceCriteria: ["Prints 'count word' lines"], dependsOn: ['T1'] },
    ];
    const res = await post('routed', { goal: await goal(), source: project, mode: 'v1', operator: 'auto', tasks });
    expect(res.statusCode).toBe(201);
    const { runId } = res.json() as { runId: string };
    const view = await run.until('routed', runId, (v) => v.phase === 'completed', 'the routed run to complete');

    const t1 = first(view, (s) => s.taskKey === 'T1');
    expect(t1.routing).toMatchObject({ tier: 'haiku', effort: 'quick', pinned: false, reasons: ['task T1', 'names 1 file: src/word-stats.js', 'single-file task without reasoning → haiku'] });
    const t2 = first(view, (s) => s.taskKey === 'T2');
    expect(t2.routing).toMatchObject({ tier: 'opus', effort: 'deep', pinned: false, signals: { requiresReasoning: true, dependencyDepth: 1 } });
    expect(t2.routing!.reasons).toEqual(expect.arrayContaining(['risky work: refactor, security', 'dependency depth 1', 'reasoning required → opus']));
    expect(first(view, (s) => s.purpose === 'workshop').routing).toMatchObject({ tier: 'opus', effort: 'deep', reasons: expect.arrayContaining(['workshop round 1: the goal is still open']) });
    expect(first(view, (s) => s.purpose === 'qa').routing).toMatchObject({ tier: 'sonnet', effort: 'standard' });

    // Every session — including the resumed QA fix — started on exactly the model and effort its run recorded.
    const starts = await sessionStarts(runId);
    expect(view.sessions.length).toBeGreaterThanOrEqual(5);
    for (const s of view.sessions) {
      expect(s.routing).not.toBeNull();
      expect({ id: s.sessionId, model: starts.get(s.sessionId)?.model, effort: starts.get(s.sessionId)?.effort }).toEqual({ id: s.sessionId, model: s.routing!.model, effort: s.routing!.effort });
    }

    // The event summaries (the SSE stream's, the CLI's) say which model each session runs on and how it was chosen.
    const lines = (await runEvents(runId)).map(summariseRunEvent);
    expect(lines).toContain(`Con started T1 'Add topWords(text, n) to src/word-stats.js' — ${t1.routing!.model}, quick effort (routed)`);
    expect(lines.some((l) => l.startsWith(`${l.split(' ')[0]} started T2 'Refactor the bin/word-stats.js entry for security: validate its arguments' — ${t2.routing!.model}, deep effort (routed)`))).toBe(true);
  });

  it('a run with the operator\'s model and effort records every session as pinned by the operator', async () => {
    const tasks = [{ key: 'T1', subject: 'Add topWords(text, n) to src/word-stats.js', pool: 'backend', acceptanceCriteria: ['Most frequent first'], dependsOn: [] }];
    const res = await post('pinned', { goal: await goal(), source: project, mode: 'v1', operator: 'auto', tasks, model: 'sonnet', effort: 'standard' });
    expect(res.statusCode).toBe(201);
    const view = await run.until('pinned', (res.json() as { runId: string }).runId, (v) => v.phase === 'completed', 'the pinned run to complete');
    expect(view.sessions.length).toBeGreaterThan(1);
    for (const s of view.sessions) {
      expect(s.routing).toMatchObject({ tier: 'sonnet', effort: 'standard', pinned: true, pinnedBy: 'operator', reasons: expect.arrayContaining(['explicit model sonnet', 'explicit effort standard']) });
    }
  });

  it('`headspace run --agent builder` runs the build sessions as the project\'s builder (its tools, its model as a pin, its prompt and turn limit); the other sessions route', async () => {
    const out = await cli(['run', join(project, 'GOAL.md'), '-w', project, '-t', 'agents', '--agent', 'builder']);
    expect(out.stderr).not.toMatch(/✖/);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/✔ .* — completed \(done\)/);

    const runId = (await h().db.pool.query(`SELECT data->>'runId' AS id FROM orchestrator.events WHERE type = 'run.started' AND data->>'team' = 'agents'`)).rows[0].id as string;
    const lines = (await runEvents(runId)).map(summariseRunEvent);
    expect(lines.some((l) => /started T1 '[^']+' — claude-haiku\S*, quick effort \(pinned by agent builder\)$/.test(l))).toBe(true);
    const view = await run.view('agents', runId);
    expect(view.agent).toBe('builder');
    const builds = view.sessions.filter((s) => s.purpose === 'task');
    expect(builds.length).toBeGreaterThanOrEqual(2);
    const starts = await sessionStarts(runId);
    for (const s of builds) {
      expect(s).toMatchObject({ agent: 'builder', routing: { model: MODEL_ALIASES.haiku, pinned: true, pinnedBy: 'agent' } });
      expect(starts.get(s.sessionId)).toMatchObject({
        persona: s.persona,
        model: MODEL_ALIASES.haiku,
        tools: ['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep'],
        agent: { name: 'builder', maxTurns: 30, systemPrompt: expect.stringContaining('You build exactly what the task asks') },
      });
    }
    for (const s of view.sessions.filter((x) => x.purpose !== 'task')) {
      expect(s).toMatchObject({ agent: null, routing: { pinned: false } });
      expect(starts.get(s.sessionId)).not.toHaveProperty('agent');
    }
  });

  it('an agent the project and user do not define is a 400 naming `agent` listing the agents, and nothing is written', async () => {
    const before = await startedRuns();
    const res = await post('nobody', { goal: await goal(), source: project, agent: 'nobody' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'CONTRACTS.VALIDATION_FAILED', field: 'agent' });
    expect(res.json().detail).toMatch(/no agent "nobody" .*\(agents: .*builder/);
    const bad = await post('nobody', { goal: await goal(), source: project, agent: 'Not An Agent' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().field).toBe('agent');

    const out = await cli(['run', join(project, 'GOAL.md'), '-w', project, '-t', 'nobody', '--agent', 'nobody']);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('no agent "nobody"');
    const effort = await cli(['run', join(project, 'GOAL.md'), '-w', project, '-t', 'nobody', '--effort', 'max']);
    expect(effort.code).toBe(1);
    expect(effort.stderr).toContain('--effort must be quick, standard or deep, got "max"');
    expect(await startedRuns()).toBe(before);
  });
});
