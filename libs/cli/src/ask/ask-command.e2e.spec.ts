import { execFile, execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { costOf, type AskView, type PriceTable, type SessionUsage } from '@headspace/contracts';
import { priceRowFor } from '@headspace/llm';
import { waitFor } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The CLI's end-to-end test runs the real binary against the real services, booted in-process.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { REPO_ROOT, startRunHarness, type RunHarness } from '../../../../apps/gateway/src/runs/testing/run-harness';

const BIN = join(REPO_ROOT, 'bin', 'headspace.js');
const TYPO = '# Demo\n\nThis is teh demo project.\n';
/** The reviewer of the subagent specs (sessions/subagents): reads and greps, never edits, on haiku. */
const REVIEWER = `---
name: reviewer
description: Reviews a change for correctness without editing anything. Use after an edit, e.g. "review src/greet.mjs".
tools: Read, Grep
model: haiku
maxTurns: 5
---
You review code and report concrete problems. You never edit files.
`;

describe('headspace ask / POST /api/v1/teams/:team/asks on the simulator', { timeout: 300_000 }, () => {
  let run: RunHarness;
  let endpoint: string;
  let project: string;
  const h = () => run.h;
  const askEvents = async () => Number((await h().db.pool.query(`SELECT count(*)::int AS n FROM orchestrator.events WHERE stream_id LIKE 'ask-%'`)).rows[0].n);
  const post = (payload: unknown, team = 'demo') => h().call({ method: 'POST', url: `/api/v1/teams/${team}/asks`, payload: payload as Record<string, unknown> }, h().adminToken);
  const view = async (askId: string, team = 'demo') => (await h().call({ method: 'GET', url: `/api/v1/teams/${team}/asks/${askId}` }, h().adminToken)).json() as AskView;
  const ended = (askId: string) => waitFor(async () => ((v) => (v.status === 'running' ? undefined : v))(await view(askId)), { timeoutMs: 120_000, intervalMs: 200, message: `ask ${askId} to end` });

  beforeAll(async () => {
    run = await startRunHarness({ label: 'ask', sourceRoots: true });
    project = join(run.dir, 'projects', 'demo');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'README.md'), TYPO);
    await mkdir(join(project, '.headspace', 'agents'), { recursive: true });
    await writeFile(join(project, '.headspace', 'agents', 'reviewer.md'), REVIEWER);
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

  it('`headspace ask "fix the typo in README.md"` runs one session on the light model routing chose, fixes README.md on the ask branch and costs what the price table says', async () => {
    const out = await cli(['ask', 'fix the typo in README.md', '-w', project]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    // The routing line, the agent's turns as they came, the result, the files and the cost labelled simulated.
    expect(out.stdout).toMatch(/^routing: claude-haiku\S* \(haiku tier, quick effort\) — names 1 file: README\.md; single-file task without reasoning → haiku$/m);
    expect(out.stdout).toMatch(/\[turn 1\] (\[simulated\] )?I'll look at README\.md first\.\n {2}↳ Read README\.md/);
    expect(out.stdout).toMatch(/\[turn 2\] (\[simulated\] )?Found it: "teh" should be "the"\.\n {2}↳ Edit README\.md/);
    expect(out.stdout).toMatch(/✔ ask \S+ completed {2}\[simulated\]/);
    expect(out.stdout).toContain('files:   README.md');
    expect(out.stdout).toMatch(/^cost: {4}\$\d+\.\d+ \(simulated\)$/m);

    const askId = /✔ ask (\S+) completed/.exec(out.stdout)![1];
    const ask = await view(askId);
    expect(ask).toMatchObject({ status: 'completed', persona: 'con', simulated: true, filesChanged: ['README.md'], routing: { tier: 'haiku', effort: 'quick', pinned: false } });
    expect(ask.routing.reasons).toEqual(['names 1 file: README.md', 'single-file task without reasoning → haiku']);

    // One session, started on the routed model, and no other.
    const sessions = (await h().db.pool.query(`SELECT data FROM orchestrator.events WHERE type = 'session.started' AND data->>'runId' = $1`, [askId])).rows;
    expect(sessions.map((r) => ({ model: r.data.model, effort: r.data.effort, situation: r.data.situation }))).toEqual([{ model: ask.routing.model, effort: 'quick', situation: 'ask' }]);

    // The edit is on the ask's branch in its checkout; the source itself is untouched.
    const onBranch = execFileSync('git', ['-C', ask.dir!, 'show', `${ask.branch}:README.md`], { encoding: 'utf8' });
    expect(onBranch).toBe('# Demo\n\nThis is the demo project.\n');
    expect(execFileSync('git', ['-C', ask.dir!, 'rev-parse', ask.branch!], { encoding: 'utf8' }).trim()).toBe(ask.commit);
    expect(await readFile(join(project, 'README.md'), 'utf8')).toBe(TYPO);

    // Cost = the price table's rates on the usage each recorded model call reported.
    const { table } = (await h().call({ method: 'GET', url: '/api/v1/prices' }, h().adminToken)).json() as { table: PriceTable };
    const calls = (await h().db.pool.query(`SELECT data FROM orchestrator.events WHERE type = 'session.model-called' AND stream_id = $1 ORDER BY stream_version`, [`session-${ask.sessionId}`])).rows.map((r) => r.data as { model: string; usage: SessionUsage });
    expect(calls.length).toBe(3);
    let micros = 0n;
    for (const call of calls) micros += costOf(priceRowFor(table, call.model)!, table.multipliers, call.usage, false).micros;
    expect(micros).toBeGreaterThan(0n);
    expect(Math.round(Number(ask.costUsd) * 1_000_000)).toBe(Number(micros));
    expect(out.stdout).toContain(`cost:    $${ask.costUsd} (simulated)`);

    // Listed under its team; not found under another.
    const list = (await h().call({ method: 'GET', url: '/api/v1/teams/demo/asks' }, h().adminToken)).json() as { items: Array<{ askId: string; status: string; costUsd: string }> };
    expect(list.items.find((a) => a.askId === askId)).toMatchObject({ status: 'completed', costUsd: ask.costUsd });
    const elsewhere = await h().call({ method: 'GET', url: `/api/v1/teams/other/asks/${askId}` }, h().adminToken);
    expect(elsewhere.statusCode).toBe(404);
    expect(elsewhere.json()).toMatchObject({ code: 'ASK.NOT_FOUND' });
  });

  it('routes a risky multi-file request to a stronger model at a deeper effort, and a pinned one as pinned', async () => {
    const risky = await post({ prompt: 'Refactor the auth token checks across src/auth/token.ts, src/auth/session.ts and src/api/routes.ts for security', workspace: project });
    expect(risky.statusCode).toBe(201);
    const routing = risky.json().routing as AskView['routing'];
    expect(routing).toMatchObject({ tier: 'opus', effort: 'deep', pinned: false });
    expect(routing.reasons).toEqual(expect.arrayContaining(['names 3 files: src/auth/token.ts, src/auth/session.ts, src/api/routes.ts', 'risky work: refactor, auth, security', 'reasoning required → opus']));
    const riskyView = await ended(risky.json().askId);
    expect(riskyView).toMatchObject({ status: 'completed', routing: { tier: 'opus', effort: 'deep' } });

    const pinned = await post({ prompt: 'fix the typo in README.md', workspace: project, model: 'sonnet', effort: 'standard' });
    expect(pinned.statusCode).toBe(201);
    expect(pinned.json().routing).toMatchObject({ tier: 'sonnet', effort: 'standard', pinned: true });
    expect(pinned.json().routing.reasons).toEqual(expect.arrayContaining(['explicit model sonnet', 'explicit effort standard']));
    await ended(pinned.json().askId);
  });

  it('a bad body is a 400 naming the field, and nothing is written', async () => {
    const before = await askEvents();
    for (const [payload, field] of [
      [{ workspace: project }, 'prompt'],
      [{ prompt: '   ', workspace: project }, 'prompt'],
      [{ prompt: 'fix it', workspace: project, effort: 'max' }, 'effort'],
      [{ prompt: 'fix it', workspace: 'projects/demo' }, 'workspace'],
      [{ prompt: 'fix it', workspace: project, agent: 'Not An Agent' }, 'agent'],
    ] as const) {
      const res = await post(payload);
      expect({ field, status: res.statusCode }).toEqual({ field, status: 400 });
      expect(res.json().field).toBe(field);
    }
    expect(await askEvents()).toBe(before);
  });

  it('a workspace outside HS_SOURCE_ROOTS is a 403 naming `workspace`, and nothing is written', async () => {
    const before = await askEvents();
    for (const workspace of ['/etc', join(run.dir, 'runs')]) {
      const res = await post({ prompt: 'fix the typo in README.md', workspace });
      expect({ workspace, status: res.statusCode }).toEqual({ workspace, status: 403 });
      expect(res.json()).toMatchObject({ code: 'RUN.SOURCE_NOT_ALLOWED', field: 'workspace' });
    }
    const cli403 = await cli(['ask', 'fix the typo in README.md', '-w', '/etc', '-t', 'demo']);
    expect(cli403.code).toBe(4);
    expect(await askEvents()).toBe(before);
  });

  it('`headspace ask --agent reviewer` runs the project\'s reviewer definition: its model as a pin, its tools (the Edit it may not use is refused), its prompt and turn limit', async () => {
    const out = await cli(['ask', 'fix the typo in README.md', '-w', project, '--agent', 'reviewer']);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^routing: claude-haiku\S* \(haiku tier, quick effort, pinned by the agent\) — names 1 file: README\.md; agent reviewer; explicit model claude-haiku\S*$/m);
    const askId = /✔ ask (\S+) completed/.exec(out.stdout)![1];
    const ask = await view(askId);
    expect(ask).toMatchObject({ status: 'completed', agent: 'reviewer', persona: 'reviewer', filesChanged: [], routing: { tier: 'haiku', pinned: true, pinnedBy: 'agent' } });

    // The session ran as the definition recorded in ask.started: its allow-list, model, prompt and turn limit.
    const started = (await h().db.pool.query(`SELECT data FROM orchestrator.events WHERE type = 'session.started' AND stream_id = $1`, [`session-${ask.sessionId}`])).rows[0].data;
    expect(started).toMatchObject({ persona: 'reviewer', model: ask.routing.model, tools: ['Read', 'Grep'], agent: { name: 'reviewer', maxTurns: 5, systemPrompt: expect.stringContaining('You never edit files.') } });
    const recorded = (await h().db.pool.query(`SELECT data FROM orchestrator.events WHERE type = 'ask.started' AND stream_id = $1`, [`ask-${askId}`])).rows[0].data;
    expect(recorded.agentDefinition).toMatchObject({ name: 'reviewer', scope: 'project', source: join(project, '.headspace', 'agents', 'reviewer.md'), tools: ['Read', 'Grep'], maxTurns: 5 });

    // Read ran; the Edit was refused by the allow-list, so README.md is unchanged on the ask's branch.
    const tools = (await h().db.pool.query(`SELECT data FROM orchestrator.events WHERE type = 'session.tool-called' AND stream_id = $1 ORDER BY stream_version`, [`session-${ask.sessionId}`])).rows.map((r) => r.data as { tool: string; isError: boolean; content: string });
    expect(tools.map((t) => [t.tool, t.isError])).toEqual([['Read', false], ['Edit', true]]);
    expect(tools[1].content).toMatch(/Refused: tool "Edit" is not in this persona's allowed tools \(Read, Grep\)/);
    expect(execFileSync('git', ['-C', ask.dir!, 'show', `${ask.branch}:README.md`], { encoding: 'utf8' })).toBe(TYPO);
  });

  it('an --agent that names no agent definition and no persona is a 400 naming `agent` listing both, and nothing is written; a persona name keeps working', async () => {
    const before = await askEvents();
    const res = await post({ prompt: 'fix the typo in README.md', workspace: project, agent: 'nobody' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'CONTRACTS.VALIDATION_FAILED', field: 'agent' });
    expect(res.json().detail).toMatch(/no agent "nobody" \(agents: .*reviewer.*; personas: .*con.*\)/);
    const cli400 = await cli(['ask', 'fix the typo in README.md', '-w', project, '--agent', 'nobody']);
    expect(cli400.code).not.toBe(0);
    expect(cli400.stderr).toContain('no agent "nobody"');
    expect(await askEvents()).toBe(before);

    const persona = await post({ prompt: 'what does README.md say?', workspace: project, agent: 'may' });
    expect(persona.statusCode).toBe(201);
    const done = await ended(persona.json().askId);
    expect(done).toMatchObject({ status: 'completed', persona: 'may', agent: 'may' });
    expect(done.routing.pinned).toBe(false);
  });
});
