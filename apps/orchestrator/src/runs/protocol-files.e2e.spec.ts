import { execFile, execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunView } from '@headspace/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The run's end-to-end test drives the real services through the gateway, booted in-process.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { REPO_ROOT, startRunHarness, type RunHarness } from '../../../gateway/src/runs/testing/run-harness';

const BIN = join(REPO_ROOT, 'bin', 'headspace.js');
const cap = (persona: string) => persona.charAt(0).toUpperCase() + persona.slice(1);
const TEAM = 'word-stats';
/** The project's team (seed 001): the word-stats builders with the tools its scenarios use, each owning the code and tests. */
const TEAM_YAML = `team: ${TEAM}
description: Builds and tests the word-stats library
defaults:
  model: sonnet
  budget: 0.5
members:
  - name: con
    role: Backend builder of the word-stats library
    tools: [Read, Write, Edit, Bash, Glob, Grep]
    owns: ["src/**", "test/**", "bin/**"]
  - name: al
    role: Second builder
    model: haiku
    tools: [Read, Write, Edit, Bash, Glob, Grep]
    owns: ["src/**", "test/**", "bin/**"]
`;

/**
 * Protocol files in the project (issue 22 scope 4, seed 001): a run on a project holding
 * `.claude/team.yaml` imports it as the team's manifest when it starts, and when it completes the
 * result branch holds the team's memory — `memory/agents/<persona>/learnings.md`,
 * `memory/decisions.md` and `memory/retros/<runId>.md`; `headspace assemble` and `headspace retro`
 * reach the same through the API.
 */
describe('protocol files: .claude/team.yaml, memory/ in the result branch, assemble and retro', { timeout: 600_000 }, () => {
  let run: RunHarness;
  let endpoint: string;
  let project: string;
  const h = () => run.h;
  const post = (team: string, payload: Record<string, unknown>) => h().call({ method: 'POST', url: `/api/v1/teams/${team}/runs`, payload }, h().adminToken);
  const get = (url: string) => h().call({ method: 'GET', url }, h().adminToken);
  const startedRuns = async () => Number((await h().db.pool.query(`SELECT count(*)::int AS n FROM orchestrator.events WHERE type = 'run.started'`)).rows[0].n);
  const git = (dir: string, args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' });

  const cli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((done) => {
      execFile(
        process.execPath,
        [BIN, ...args],
        { env: { ...process.env, HEADSPACE_CONFIG: join(run.dir, 'cli.json'), HEADSPACE_URL: endpoint, HEADSPACE_TOKEN: h().adminToken, NO_COLOR: '1' }, timeout: 120_000 },
        (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  /** A copy of the word-stats example under the allowed roots, with `teamYaml` as its .claude/team.yaml. */
  const projectWith = async (name: string, teamYaml: string) => {
    const dir = join(run.dir, 'projects', name);
    await cp(join(REPO_ROOT, 'examples', 'word-stats'), dir, { recursive: true });
    await mkdir(join(dir, '.claude'), { recursive: true });
    await writeFile(join(dir, '.claude', 'team.yaml'), teamYaml);
    return dir;
  };

  beforeAll(async () => {
    run = await startRunHarness({ label: 'protofiles', scenarios: 'word-stats', sourceRoots: true });
    project = await projectWith('word-stats', TEAM_YAML);
    await h().http().listen({ port: 0, host: '127.0.0.1' });
    endpoint = `http://127.0.0.1:${(h().http().server.address() as { port: number }).port}`;
  }, 120_000);

  afterAll(async () => {
    await run?.close();
  });

  let completed: RunView;

  it('a run on a project with .claude/team.yaml makes it the team’s manifest, records that on run.started, and completes', async () => {
    expect((await get(`/api/v1/teams/${TEAM}/manifest`)).statusCode).toBe(404);
    const res = await post(TEAM, { goal: await readFile(join(project, 'GOAL.md'), 'utf8'), source: project, mode: 'v3', operator: 'auto' });
    expect(res.statusCode).toBe(201);
    const { runId } = res.json() as { runId: string };

    const manifest = await get(`/api/v1/teams/${TEAM}/manifest`);
    expect(manifest.statusCode).toBe(200);
    expect(manifest.json()).toMatchObject({
      team: TEAM,
      members: [
        { name: 'con', role: 'Backend builder of the word-stats library', model: 'sonnet', owns: ['src/**', 'test/**', 'bin/**'] },
        { name: 'al', role: 'Second builder', model: 'haiku' },
      ],
    });
    const started = (await h().db.pool.query(`SELECT data FROM orchestrator.events WHERE stream_id = $1 AND type = 'run.started'`, [`run-${runId}`])).rows[0].data;
    expect(started.manifest).toEqual({ path: '.claude/team.yaml', members: ['con', 'al'], changed: true });

    completed = await run.until(TEAM, runId, (v) => v.phase === 'completed', 'the run on the project to complete');
    expect(completed.verdict).toBe('done');
  });

  it('the result branch holds the builders’ learnings, the team’s decisions and the run’s retro, committed with the work', async () => {
    expect(completed).toBeDefined();
    const { resultDir, branch, runId } = completed;
    const show = (path: string) => git(resultDir!, ['show', `${branch}:${path}`]);
    const builders = [...new Set(completed.sessions.filter((s) => s.purpose === 'task').map((s) => s.persona))];
    const t1 = completed.tasks.find((t) => t.key === 'T1')!.persona!;
    expect(builders).toContain(t1);
    for (const persona of builders) expect(show(`memory/agents/${persona}/learnings.md`)).toMatch(new RegExp(`^# Learnings: ${persona}\\n`));
    // T1's builder suggested this learning in its reflection (examples/scenarios/word-stats/implement-t1.yaml).
    expect(show(`memory/agents/${t1}/learnings.md`)).toMatch(/## Codebase Patterns\n- word-stats tests run with npm test \(node --test\)\. \(added: \d{4}-\d{2}-\d{2}\)/);
    expect(show('memory/agents/robbo/learnings.md')).toContain('# Learnings: robbo');

    const decisions = show('memory/decisions.md');
    expect(decisions).toMatch(/^# Team Decisions\n/);
    expect(decisions).toMatch(new RegExp(`## Reviews\\n- Run ${runId} '.*': done .*\\(decided: \\d{4}-\\d{2}-\\d{2}, by: robbo\\)`));

    const retro = show(`memory/retros/${runId}.md`);
    expect(retro).toContain(`Run \`${runId}\` of team ${TEAM}`);
    expect(retro).toMatch(/- Verdict: done/);
    expect(retro).toMatch(new RegExp(`### ${cap(t1)} — task T1\\n(- .*\\n)*- Learned: word-stats tests run with npm test`));

    // One commit by the team on top of the merged work, and the checkout left clean.
    expect(git(resultDir!, ['log', '-1', '--format=%an|%s', branch!]).trim()).toBe(`headspace|Team memory of run ${runId}`);
    expect(git(resultDir!, ['status', '--porcelain']).trim()).toBe('');
    // The agent home keeps its own copy of the learnings, as before.
    expect(await readFile(join(run.dir, 'agents', 'personas', t1, 'learnings.md'), 'utf8')).toContain('word-stats tests run with npm test');
  });

  it('a malformed .claude/team.yaml refuses the start with a 400 naming the field; no run starts and no manifest is written', async () => {
    const bad = await projectWith('bad-tools', TEAM_YAML.replace('team: word-stats', 'team: bad-tools').replace('tools: [Read, Write, Edit, Bash, Glob, Grep]', 'tools: ["rm -rf /"]'));
    const before = await startedRuns();
    const res = await post('bad-tools', { goal: await readFile(join(bad, 'GOAL.md'), 'utf8'), source: bad, mode: 'v3', operator: 'auto' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'MANIFEST.INVALID', field: 'members.0.tools.0' });
    expect(res.json().detail).toMatch(/^\.claude\/team\.yaml: /);

    const other = await projectWith('other-team', TEAM_YAML.replace('team: word-stats', 'team: somebody-else'));
    const mismatch = await post('other-team', { goal: await readFile(join(other, 'GOAL.md'), 'utf8'), source: other, mode: 'v3', operator: 'auto' });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json()).toMatchObject({ code: 'MANIFEST.INVALID', field: 'team' });

    expect(await startedRuns()).toBe(before);
    expect((await get('/api/v1/teams/bad-tools/manifest')).statusCode).toBe(404);
    expect((await get('/api/v1/teams/somebody-else/manifest')).statusCode).toBe(404);
  });

  it('headspace assemble imports a team.yaml and prints the roster; a bad one fails naming the field', async () => {
    const file = join(run.dir, 'assemble.yaml');
    await writeFile(file, TEAM_YAML.replace('team: word-stats', 'team: assembled'));
    const out = await cli(['assemble', file]);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`Team assembled assembled from ${file}: 2 members`);
    expect(out.stdout).toMatch(/con .*Backend builder of the word-stats library.*sonnet/);
    expect((await get('/api/v1/teams/assembled/manifest')).json()).toMatchObject({ members: [{ name: 'con' }, { name: 'al', model: 'haiku' }] });

    await writeFile(file, TEAM_YAML.replace('team: word-stats', 'team: assembled').replace('budget: 0.5', 'budget: -1'));
    const bad = await cli(['assemble', file]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('defaults.budget');
  });

  it('headspace retro prints the run’s retrospective and writes it with --out', async () => {
    expect(completed).toBeDefined();
    const printed = await cli(['retro', completed.runId, '-t', TEAM]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain(`# Retro: ${completed.title}`);
    expect(printed.stdout).toMatch(/- Phase: completed\n- Verdict: done/);
    const t1 = completed.tasks.find((t) => t.key === 'T1')!;
    expect(printed.stdout).toContain(`- T1 ${t1.subject}: merged (${cap(t1.persona!)}, ${t1.attempts} attempt`);

    const out = join(run.dir, 'retro.md');
    const written = await cli(['retro', completed.runId, '-t', TEAM, '--out', out]);
    expect(written.code).toBe(0);
    expect(await readFile(out, 'utf8')).toBe(printed.stdout);
  });
});
