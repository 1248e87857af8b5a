import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AskView, LearningView, RankedLearning } from '@headspace/contracts';
import { startSimulator, type RunningSimulator } from '@headspace/llm';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The spec boots the real gateway, orchestrator and cost governor in-process; apps never import each other outside specs.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { REPO_ROOT, startRunHarness, type RunHarness } from '../../../gateway/src/runs/testing/run-harness';

const BIN = join(REPO_ROOT, 'bin', 'headspace.js');
/** The task class of libs/llm/scenarios/any-ask-settings-jsonc.yaml: the model repeats its JSON.parse error unless its prompt holds the learning. */
const SETTINGS_TASK = 'read the app settings from settings.json';
const LEARNING = 'settings.json has comments';
const RUNS = 10;

/**
 * The learning store end to end (ADR 0048): asks on the simulator (its own server here, so the spec
 * reads the system prompts it was sent) through the gateway and the CLI; a learning recorded by one
 * ask's reflection is retrieved into the next related ask's prompt and not an unrelated one's, and
 * the measurement of seed 003 Req 21.5 — repetitions of an error class with the store on vs off.
 */
describe('learning store: recorded from reflections, retrieved into prompts, confidence by outcome', { timeout: 600_000 }, () => {
  let sim: RunningSimulator;
  let run: RunHarness;
  let project: string;
  let endpoint: string;

  const boot = async (store: 'on' | 'off') => {
    run = await startRunHarness({ label: `learnings-${store}`, sourceRoots: true, env: { ANTHROPIC_API_KEY: 'sk-headspace-simulated', ANTHROPIC_BASE_URL: sim.url, HS_LEARNINGS_STORE: store } });
    project = join(run.dir, 'projects', 'app');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'README.md'), '# App\n\nThis is teh app.\n');
    await writeFile(join(project, 'settings.json'), '{\n  // the port\n  "port": 8080\n}\n');
  };
  const h = () => run.h;
  const call = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) => h().call({ method, url, ...(payload ? { payload } : {}) }, h().adminToken);
  const ask = async (team: string, prompt: string): Promise<AskView> => {
    const started = await call('POST', `/api/v1/teams/${team}/asks`, { prompt, workspace: project });
    expect(started.statusCode).toBe(201);
    const { askId } = started.json() as { askId: string };
    return waitFor(async () => ((v: AskView) => (v.status === 'running' ? undefined : v))((await call('GET', `/api/v1/teams/${team}/asks/${askId}`)).json() as AskView), {
      timeoutMs: 120_000,
      intervalMs: 200,
      message: `ask ${askId} to end`,
    });
  };
  const systemSent = () => JSON.stringify(sim.handler.lastRequest?.system ?? '');
  /** What the simulated model reported for the ask's session: `failed` is the repeated error. */
  const reported = async (askId: string) =>
    (await h().db.pool.query<{ status: string }>(`SELECT data->'reflection'->'task_result'->>'status' AS status FROM orchestrator.events WHERE type = 'session.reflected' AND stream_id LIKE $1`, [`session-${askId}.%`])).rows.map((r) => r.status);
  const search = async (team: string, q: string) => ((await call('GET', `/api/v1/teams/${team}/learnings?q=${encodeURIComponent(q)}`)).json() as { learnings: RankedLearning[] }).learnings;
  const learningEvents = async () => Number((await h().db.pool.query(`SELECT count(*)::int AS n FROM orchestrator.events WHERE stream_id LIKE 'learning-%'`)).rows[0].n);

  /** RUNS fresh asks of the task class in a new team; after a failure, the next waits until the store has what it learned (or, off, for nothing). */
  const repetitions = async (team: string, store: 'on' | 'off'): Promise<number> => {
    let failures = 0;
    for (let i = 0; i < RUNS; i++) {
      const done = await ask(team, SETTINGS_TASK);
      const statuses = await reported(done.askId);
      if (!statuses.includes('failed')) continue;
      failures++;
      if (store === 'on') await waitFor(async () => ((await search(team, 'settings.json comments')).length > 0 ? true : undefined), { timeoutMs: 30_000, intervalMs: 200, message: 'the learning to be stored' });
    }
    return failures;
  };

  const cli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((done) => {
      execFile(
        process.execPath,
        [BIN, ...args],
        { env: { ...process.env, HEADSPACE_CONFIG: join(run.dir, 'cli.json'), HEADSPACE_URL: endpoint, HEADSPACE_TOKEN: h().adminToken, NO_COLOR: '1' }, timeout: 120_000 },
        (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  beforeAll(async () => {
    sim = await startSimulator({ announce: false });
    await boot('on');
    await h().http().listen({ port: 0, host: '127.0.0.1' });
    endpoint = `http://127.0.0.1:${(h().http().server.address() as { port: number }).port}`;
  }, 180_000);

  afterAll(async () => {
    await run?.close();
    await sim?.close();
  });

  it('a learning one ask reflected reaches the next related ask’s prompt and not an unrelated one’s, and its confidence rises when that ask succeeds', async () => {
    const first = await ask('demo', SETTINGS_TASK);
    expect(systemSent()).not.toContain(LEARNING);
    expect(await reported(first.askId)).toEqual(['failed']);

    const [stored] = await waitFor(async () => ((found) => (found.length > 0 ? found : undefined))(await search('demo', 'settings.json comments')), { timeoutMs: 30_000, intervalMs: 200, message: 'the reflected learning' });
    expect(stored).toMatchObject({ pattern: LEARNING, resolution: 'parse it as JSONC, never with JSON.parse', category: 'gotcha', persona: first.persona, project, confidence: 0.5, source: { kind: 'ask', id: first.askId } });

    const related = await ask('demo', SETTINGS_TASK);
    expect(systemSent()).toContain(`${LEARNING} → parse it as JSONC`);
    expect(await reported(related.askId)).toEqual(['completed']);

    const unrelated = await ask('demo', 'fix the typo in README.md');
    expect(unrelated.status).toBe('completed');
    expect(systemSent()).toContain('Situation: ask');
    expect(systemSent()).not.toContain(LEARNING);

    const reinforced = await waitFor(
      async () => ((l: LearningView) => (l.reinforced > 0 ? l : undefined))((await call('GET', `/api/v1/teams/demo/learnings/${stored.learningId}`)).json() as LearningView),
      { timeoutMs: 30_000, intervalMs: 200, message: 'the learning to be reinforced' },
    );
    expect(reinforced).toMatchObject({ confidence: 0.6, reinforced: 1, weakened: 0 });
    expect(reinforced.usedAt).not.toBeNull();
  });

  it('`headspace learnings add|search|show` add one by hand and find it ranked', async () => {
    const added = await cli(['learnings', 'add', 'flaky port in integration tests', '-r', 'listen on port 0', '--category', 'gotcha', '-t', 'cli', '--confidence', '0.8']);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const learningId = /learning (\S+) added/.exec(added.stdout)![1];
    const found = await waitFor(async () => ((out) => (out.stdout.includes(learningId) ? out : undefined))(await cli(['learnings', 'search', 'flaky', 'port', '-t', 'cli'])), {
      timeoutMs: 30_000,
      intervalMs: 300,
      message: 'the added learning in search',
    });
    expect(found.stdout).toContain('listen on port 0');
    const shown = await cli(['learnings', 'show', learningId, '-t', 'cli']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('pattern:    flaky port in integration tests');
    expect(shown.stdout).toContain('confidence: 0.80');
  });

  it('a learning’s text has its secrets redacted before it is recorded', async () => {
    const res = await call('POST', '/api/v1/teams/demo/learnings', { pattern: 'the deploy needs a key', resolution: 'export ANTHROPIC_API_KEY=sk-ant-api03-FAKEfake0123456789abcdefGHIJKLmnopqrST-uvwxyz_0123 first' });
    expect(res.statusCode).toBe(201);
    const { learningId } = res.json() as { learningId: string };
    const { rows } = await h().db.pool.query<{ data: { resolution: string } }>(`SELECT data FROM orchestrator.events WHERE stream_id = $1`, [`learning-${learningId}`]);
    expect(rows[0].data.resolution).toContain('[redacted:anthropic-key]');
    expect(JSON.stringify(rows)).not.toContain('sk-ant-api03-FAKE');
  });

  it('bad input is refused with the field named and writes nothing', async () => {
    const before = await learningEvents();
    for (const [payload, field] of [
      [{ pattern: '   ' }, 'pattern'],
      [{ pattern: 'x', confidence: 2 }, 'confidence'],
      [{ pattern: 'x', category: 'rumour' }, 'category'],
    ] as const) {
      const res = await call('POST', '/api/v1/teams/demo/learnings', payload);
      expect(res.statusCode).toBe(400);
      expect(JSON.stringify(res.json())).toContain(field);
    }
    for (const [query, field] of [
      ['persona=Not_A_Persona', 'persona'],
      ['limit=0', 'limit'],
    ] as const) {
      const res = await call('GET', `/api/v1/teams/demo/learnings?${query}`);
      expect(res.statusCode).toBe(400);
      expect(JSON.stringify(res.json())).toContain(field);
    }
    expect((await call('GET', '/api/v1/teams/demo/learnings/no-such-learning')).statusCode).toBe(404);
    expect(await learningEvents()).toBe(before);
  });

  it(`repeats the error class at least 50% less often with the store than without over ${RUNS} fresh asks (seed 003 Req 21.5)`, async () => {
    const withStore = await repetitions('measure-on', 'on');
    await run.close();
    await boot('off');
    const withoutStore = await repetitions('measure-off', 'off');
    console.log(`learning store: ${withStore} repetitions of the error with the store, ${withoutStore} without, over ${RUNS} asks each`);
    expect(withoutStore).toBe(RUNS);
    expect(withStore).toBeLessThanOrEqual(withoutStore / 2);
  });
});
