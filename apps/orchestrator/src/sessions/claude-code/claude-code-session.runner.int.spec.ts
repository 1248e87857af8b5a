import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseStreamLine, type ClaudeCodeRun, type ClaudeStreamMessage, type RunClaudeCodeOptions } from '@headspace/agent-runtime';
import { EventRegistry, sessionEvents, type AgentResult } from '@headspace/contracts';
import { EventStore, migrate } from '@headspace/event-store';
import { createTestDatabase, type TestDatabase } from '@headspace/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionInterrupted } from '../run-session/agent-session.runner';
import type { BudgetDecision, BudgetPort } from '../run-session/session-ports';
import { SessionRecorder } from '../session-recorder';
import { claudeSessionIdOf } from './claude-binary';
import { ClaudeCodeSessionRunner, type ClaudeCodeSessionSettings } from './claude-code-session.runner';

/**
 * The runner on the real event store with a scripted CLI (the recorded stream of word-stats task T1)
 * and a scripted governor: what it asks before the invocation, how it runs the CLI, what it settles.
 */

const schema = 'orchestrator';
let db: TestDatabase;
let store: EventStore;

beforeAll(async () => {
  db = await createTestDatabase('claudecoderunner');
  await migrate(db.pool, { schema });
  store = new EventStore({ pool: db.pool, schema, registry: new EventRegistry([...sessionEvents]) });
});
afterAll(() => db?.drop());

const lines = readFileSync(join(__dirname, 'testing', 'word-stats-t1.stream.jsonl'), 'utf8')
  .split('\n')
  .map(parseStreamLine)
  .filter((m): m is ClaudeStreamMessage => m !== undefined);

const reflection = { task_result: { status: 'completed', summary: 'Added topWords.', files_changed: ['src/word-stats.js'] }, reflection: { what_worked: 'a', what_didnt: 'b', confidence: 'high' }, suggested_learnings: [], follow_up: { needs_human: false } };

function scriptedCli(stream: ClaudeStreamMessage[], result: Partial<AgentResult> = {}) {
  const seen: RunClaudeCodeOptions[] = [];
  const runCli = async (options: RunClaudeCodeOptions): Promise<ClaudeCodeRun> => {
    seen.push(options);
    for (const m of stream) options.onMessage?.(m);
    const agent: AgentResult = {
      summary: 'Added topWords.',
      turnsUsed: 4,
      tokensConsumed: { input: 0, output: 569, cacheRead: 0, cacheWrite: 0 },
      toolsUsed: [],
      filesModified: [],
      exitReason: 'completed',
      reflection: reflection as AgentResult['reflection'],
      ...result,
    };
    return { result: agent, exitCode: 0, signal: null, stderr: '', argv: [], messages: stream, denials: [], simulated: true };
  };
  return { seen, runCli };
}

function scriptedBudget(decision: BudgetDecision) {
  const asked: number[] = [];
  const usage: Array<{ turn: number; reservationId?: string; output: number }> = [];
  const released: string[] = [];
  const budget: BudgetPort = {
    maySpend: async ({ turn }) => (asked.push(turn), decision),
    recordUsage: async ({ turn, reservationId, usage: u }) => void usage.push({ turn, reservationId, output: u.outputTokens }),
    release: async ({ reservationId }) => void released.push(reservationId),
  };
  return { asked, usage, released, budget };
}

const settings: ClaudeCodeSessionSettings = {
  binary: 'claude',
  env: {},
  contextWindow: () => 200_000,
  role: 'Builds word-stats',
  learnings: '',
  tools: ['Read', 'Write', 'Edit', 'Bash'],
  owns: ['src/**'],
  maxTurns: 60,
  maxOutputTokens: 8_192,
  fallbackBudgetUsd: 5,
};

async function startSession(): Promise<SessionRecorder> {
  const sessionId = randomUUID();
  const recorder = await SessionRecorder.load(store, sessionId);
  await recorder.record({ type: 'start-session', sessionId, team: 't', persona: 'con', kind: 'task', model: 'sonnet', effort: 'standard', runtime: 'claude-code', simulated: true, prompt: 'Task T1: add topWords', workspace: '/work/ws', situation: 'implement-task', now: new Date().toISOString() });
  return recorder;
}

const clock = () => new Date().toISOString();

describe('ClaudeCodeSessionRunner', () => {
  it('asks the governor once, runs the CLI on the routed model with the remaining budget, and settles each call (the reservation with the first)', async () => {
    const recorder = await startSession();
    const gov = scriptedBudget({ decision: 'downgraded', model: 'claude-haiku-4-5-20251001', effort: 'quick', reservationId: 'res-1', reason: 'near the limit', remainingUsd: 0.42 });
    const cli = scriptedCli(lines);
    const outcome = await new ClaudeCodeSessionRunner(recorder, { budget: gov.budget, clock, runCli: cli.runCli }, settings).run();

    expect(outcome).toMatchObject({ exitReason: 'completed', summary: 'Added topWords.', turns: 4 });
    expect(gov.asked).toEqual([1]);
    const spec = cli.seen[0].spec;
    expect(spec).toMatchObject({ model: 'claude-haiku-4-5-20251001', budgetUsd: 0.42, effort: 'low', sessionId: claudeSessionIdOf(recorder.sessionId), task: 'Task T1: add topWords', policy: { checkoutRoot: '/work/ws', ownedPaths: ['src/**'] } });
    expect(spec.resume).toBeUndefined();
    expect(cli.seen[0]).toMatchObject({ cwd: '/work/ws', inheritEnv: false });
    expect(gov.usage.map((u) => [u.turn, u.reservationId])).toEqual([[1, 'res-1'], [2, undefined], [3, undefined], [4, undefined]]);
    expect(gov.usage.reduce((n, u) => n + u.output, 0)).toBe(569);
    expect(gov.released).toEqual([]);
    const types = recorder.events.map((e) => e.type);
    expect(types[1]).toBe('session.budget-decided');
    expect(types.slice(-2)).toEqual(['session.reflected', 'session.ended']);
    expect(recorder.events.find((e) => e.type === 'session.budget-decided')?.data).toMatchObject({ decision: 'downgraded', model: 'claude-haiku-4-5-20251001', reservationId: 'res-1' });
    expect(recorder.state).toMatchObject({ status: 'ended', turns: 4, usage: { outputTokens: 569 } });
  });

  it('ends the session as budget_paused without running the CLI when the governor pauses it', async () => {
    const recorder = await startSession();
    const gov = scriptedBudget({ decision: 'paused', model: 'claude-sonnet-4-6', reason: 'Session budget paused for approval' });
    const cli = scriptedCli(lines);
    const outcome = await new ClaudeCodeSessionRunner(recorder, { budget: gov.budget, clock, runCli: cli.runCli }, settings).run();
    expect(outcome).toMatchObject({ exitReason: 'budget_paused', summary: 'Session budget paused for approval', turns: 0 });
    expect(cli.seen).toEqual([]);
    expect(recorder.events.map((e) => e.type)).toEqual(['session.started', 'session.budget-decided', 'session.ended']);
  });

  it('resumes a session the last orchestrator left mid-run: the CLI continues its persisted conversation and the turns carry on', async () => {
    const recorder = await startSession();
    const first = scriptedBudget({ decision: 'allowed', model: 'claude-sonnet-4-6', reservationId: 'res-a' });
    // the first orchestrator stopped after the CLI answered Edit: the Write call of the same message has no result
    await expect(new ClaudeCodeSessionRunner(recorder, { budget: first.budget, clock, runCli: crashAfter(8) }, settings).run()).rejects.toBeInstanceOf(SessionInterrupted);
    expect(recorder.state).toMatchObject({ status: 'running', turns: 2 });

    const again = await SessionRecorder.load(store, recorder.sessionId);
    const gov = scriptedBudget({ decision: 'allowed', model: 'claude-sonnet-4-6', reservationId: 'res-b' });
    const cli = scriptedCli(lines.slice(9));
    const outcome = await new ClaudeCodeSessionRunner(again, { budget: gov.budget, clock, runCli: cli.runCli }, settings).run();
    expect(cli.seen[0].spec).toMatchObject({ resume: claudeSessionIdOf(recorder.sessionId), task: expect.stringMatching(/^The session was interrupted/), maxTurns: 58 });
    expect(cli.seen[0].spec.sessionId).toBeUndefined();
    expect(gov.asked).toEqual([3]);
    expect(outcome).toMatchObject({ exitReason: 'completed', turns: 4 });
    const tools = again.events.filter((e) => e.type === 'session.tool-called').map((e) => `${e.data.tool}:${e.data.isError}`);
    expect(tools).toEqual(['Read:false', 'Edit:false', 'Write:true', 'Bash:false', 'StructuredOutput:false']);
    expect(again.events.find((e) => e.type === 'session.tool-called' && e.data.tool === 'Write')?.data).toMatchObject({ content: 'The Claude Code CLI stopped before this call returned.' });
  });
});

/** A CLI whose orchestrator stops after n lines: the lines so far were printed, then the run is cancelled. */
function crashAfter(n: number) {
  return async (options: RunClaudeCodeOptions): Promise<ClaudeCodeRun> => {
    for (const m of lines.slice(0, n)) options.onMessage?.(m);
    const cancelled: AgentResult = { summary: '', turnsUsed: 0, tokensConsumed: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, toolsUsed: [], filesModified: [], exitReason: 'cancelled', error: { code: 'CLAUDE_CODE.FAILED', message: 'cancelled' } };
    return { result: cancelled, exitCode: null, signal: 'SIGTERM', stderr: '', argv: [], messages: [], denials: [], simulated: true };
  };
}
