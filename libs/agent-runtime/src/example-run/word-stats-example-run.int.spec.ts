import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createLlmClient, startSimulator, type LlmClient, type RunningSimulator } from '@headspace/llm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolRegistry, workspaceTools } from '../tools';
import { playSession, type PlayedSession } from './testing/simulated-session';

// The example run's script (examples/scenarios/word-stats) played phase by phase against a real
// copy of examples/word-stats, with the runtime's own workspace tools: proof that every Edit
// matches the file as the earlier steps left it and that each phase yields what the next needs.
// The prompts follow apps/orchestrator/src/runs/run-prompts.ts.

const repo = resolve(__dirname, '../../../..');
const EXAMPLE = join(repo, 'examples', 'word-stats');
const SCRIPT = join(repo, 'examples', 'scenarios', 'word-stats');

interface Spec {
  goal: string;
  acceptanceCriteria: string[];
  constraints: string[];
  outOfScope: string[];
}
interface PlannedTask {
  key: string;
  subject: string;
  description: string;
  pool: string;
  acceptanceCriteria: string[];
  dependsOn: string[];
}
interface QaFailure {
  test: string;
  message: string;
  decision: string;
  taskKey?: string;
  details: string;
}

const bullets = (items: readonly string[]) => items.map((i) => `- ${i}`).join('\n');
const renderSpec = (s: Spec) =>
  `Goal: ${s.goal}\n\nAcceptance criteria:\n${bullets(s.acceptanceCriteria)}\n\nConstraints:\n${bullets(s.constraints)}\n\nOut of scope:\n${bullets(s.outOfScope)}`;
const taskPrompt = (t: Pick<PlannedTask, 'key' | 'subject' | 'description' | 'acceptanceCriteria'>, spec: Spec) =>
  [`Task ${t.key}: ${t.subject}`, t.description, `Acceptance criteria:\n${bullets(t.acceptanceCriteria)}`, `## Specification of the whole goal\n\n${renderSpec(spec)}`, "Run the project's tests before you finish."].join('\n\n');
const qaPrompt = (round: number, spec: Spec) =>
  `QA round ${round}. Test the build against the specification: write tests for every acceptance criterion, run the whole test suite, and judge each failure.\n\n## Specification\n\n${renderSpec(spec)}`;

let sim: RunningSimulator;
let client: LlmClient;
let dir: string;
const sessions: PlayedSession[] = [];
const readOnly = new ToolRegistry({ tools: workspaceTools, policy: { tools: ['Read', 'Glob', 'Grep'] } });
const builder = new ToolRegistry({ tools: workspaceTools });

const play = async (name: string, situation: string, prompt: string, tools: ToolRegistry) => {
  const played = await playSession(client, { name, situation, prompt, tools, workspaceRoot: dir });
  sessions.push(played);
  return played;
};
const npmTest = () => spawnSync('npm', ['test'], { cwd: dir, encoding: 'utf8' });
const snapshot = () =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort()
    .map((f) => [f, readFileSync(f, 'utf8')]);
const failedCalls = (s: PlayedSession) => s.calls.filter((c) => c.result.isError).map((c) => `${c.name}: ${c.result.content}`);

let spec: Spec;
let tasks: PlannedTask[];
let qaFailure: QaFailure;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hs-word-stats-run-'));
  cpSync(EXAMPLE, dir, { recursive: true });
  sim = await startSimulator({ extraScenarioDirs: [SCRIPT], announce: false });
  client = createLlmClient({ baseURL: sim.url, apiKey: 'test-key', timeoutMs: 30_000, maxRetries: 1 });
});
afterAll(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the word-stats example run, scripted for the simulator', () => {
  it('Robbo workshops GOAL.md into a spec faithful to it, reading the project and changing nothing', async () => {
    const before = snapshot();
    const goal = readFileSync(join(dir, 'GOAL.md'), 'utf8');
    const s = await play('Robbo', 'workshop', `Workshop this goal with the operator into a specification.\n\n## Goal\n\n${goal}`, readOnly);
    expect(s.calls.map((c) => [c.name, c.input.file_path])).toEqual([['Read', 'GOAL.md'], ['Read', 'src/word-stats.js']]);
    expect(failedCalls(s)).toEqual([]);
    expect(snapshot()).toEqual(before);
    spec = s.output.spec as Spec;
    expect(spec.goal).toMatch(/topWords/);
    const criteria = spec.acceptanceCriteria.join('\n');
    for (const rule of [/most frequent first/i, /case-insensitive/i, /alphabetical/i, /defaults to 10/i, /RangeError/, /bin\/word-stats\.js/, /existing tests/i]) expect(criteria).toMatch(rule);
    expect(spec.constraints.length).toBeGreaterThan(0);
    expect(spec.outOfScope.length).toBeGreaterThan(0);
  });

  it('Gavin decomposes the spec into T1 (topWords) and T2 (the CLI), T2 depending on T1', async () => {
    const s = await play('Gavin', 'decompose', `Split this specification into tasks for the builders.\n\n## Specification\n\n${renderSpec(spec)}`, readOnly);
    tasks = s.output.tasks as PlannedTask[];
    expect(tasks.map((t) => [t.key, t.pool, t.dependsOn])).toEqual([
      ['T1', 'backend', []],
      ['T2', 'backend', ['T1']],
    ]);
    expect(tasks[0].subject).toMatch(/topWords/);
    expect(tasks[1].subject).toMatch(/bin\/word-stats\.js/);
  });

  it('a builder implements T1 with its tests passing, but leaves n unvalidated (the deliberate first-pass bug)', async () => {
    const s = await play('Con', 'implement-task', taskPrompt(tasks[0], spec), builder);
    expect(failedCalls(s)).toEqual([]);
    expect(s.calls.map((c) => c.name)).toEqual(['Read', 'Edit', 'Write', 'Bash']);
    expect(s.reflection.task_result.status).toBe('completed');
    expect(npmTest().status).toBe(0);
    const zero = spawnSync(process.execPath, ['-e', "console.log(JSON.stringify(require('./src/word-stats').topWords('b a b', 0)))"], { cwd: dir, encoding: 'utf8' });
    expect(zero.stdout.trim()).toBe('[]');
  });

  it('another builder adds the bin/word-stats.js command on top of T1, tested as a real process', async () => {
    const s = await play('May', 'implement-task', taskPrompt(tasks[1], spec), builder);
    expect(failedCalls(s)).toEqual([]);
    expect(s.reflection.task_result.status).toBe('completed');
    expect(npmTest().status).toBe(0);
    const out = spawnSync(process.execPath, [join(dir, 'bin', 'word-stats.js')], { input: 'the cat the hat THE', encoding: 'utf8' });
    expect(out.stdout).toBe('3 the\n1 cat\n1 hat\n');
  });

  it('Verner’s QA round 1 finds the missing RangeError and sends it back to T1', async () => {
    const s = await play('Verner', 'qa', qaPrompt(1, spec), builder);
    expect(s.calls.map((c) => [c.name, c.result.isError])).toEqual([['Write', false], ['Bash', true]]);
    expect(s.calls[1].result.content).toMatch(/RangeError/);
    expect(s.output.passed).toBe(false);
    const failures = s.output.failures as QaFailure[];
    expect(failures).toHaveLength(1);
    qaFailure = failures[0];
    expect(qaFailure).toMatchObject({ decision: 'send-back', taskKey: 'T1' });
    expect(qaFailure.details).toMatch(/RangeError.*positive integer/);
  });

  it('the fix task from QA makes topWords throw a RangeError for 0, -1 and 1.5, and the whole suite pass', async () => {
    const fix = { key: 'F1-1', subject: `Fix: ${qaFailure.details}`, description: `QA round 1 (Verner) found a failure in T1.\nTest: ${qaFailure.test}\n${qaFailure.message}`, acceptanceCriteria: [`${qaFailure.test} passes`] };
    const s = await play('Con', 'implement-task', taskPrompt(fix, spec), builder);
    expect(failedCalls(s)).toEqual([]);
    expect(s.reflection.task_result.status).toBe('completed');
    expect(npmTest().status).toBe(0);
    const probe = "const { topWords } = require('./src/word-stats'); console.log([0, -1, 1.5].map((n) => { try { topWords('a', n); return 'none'; } catch (e) { return e.name; } }).join(' '))";
    expect(spawnSync(process.execPath, ['-e', probe], { cwd: dir, encoding: 'utf8' }).stdout.trim()).toBe('RangeError RangeError RangeError');
  });

  it('Verner’s QA round 2 writes the same tests again and passes', async () => {
    const s = await play('Verner', 'qa', qaPrompt(2, spec), builder);
    expect(failedCalls(s)).toEqual([]);
    expect(s.output).toEqual({ passed: true, failures: [] });
  });

  it('Robbo reviews the deliverables and says the goal is done', async () => {
    const s = await play('Robbo', 'review', `Review the team's work in a fresh session.\n\n## Specification\n\n${renderSpec(spec)}`, readOnly);
    expect(failedCalls(s)).toEqual([]);
    expect(s.output).toMatchObject({ verdict: 'done', issues: [] });
    expect(String(s.output.report)).toMatch(/positive integer/);
  });

  it('labels every text a person sees, and every session summary, as simulated', () => {
    expect(sessions).toHaveLength(8);
    const shown = sessions.flatMap((s) => [...s.shown, s.reflection.task_result.summary]);
    expect(shown.length).toBeGreaterThan(16);
    expect(shown.filter((t) => !t.startsWith('[simulated]'))).toEqual([]);
  });
});
