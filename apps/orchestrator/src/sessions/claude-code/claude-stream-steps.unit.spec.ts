import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseStreamLine, type ClaudeStreamMessage } from '@headspace/agent-runtime';
import type { SessionUsage } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { agentSessionDecider, type SessionCommand } from '../agent-session.decider';
import { claudeSessionIdOf } from './claude-binary';
import { ClaudeStreamSteps, type StreamStep } from './claude-stream-steps';

/** Recorded from the real CLI 2.1.332 running word-stats task T1 against the simulator, `src/**` owned only. */
const recorded = readFileSync(join(__dirname, 'testing', 'word-stats-t1.stream.jsonl'), 'utf8')
  .split('\n')
  .map(parseStreamLine)
  .filter((m): m is ClaudeStreamMessage => m !== undefined);

function stepsOf(lines: readonly ClaudeStreamMessage[], options: Partial<ConstructorParameters<typeof ClaudeStreamSteps>[0]> = {}): StreamStep[] {
  const steps = new ClaudeStreamSteps({ firstTurn: 1, workspace: '/work/ws', fallbackModel: 'claude-sonnet-4-6', ...options });
  return [...lines.flatMap((m) => steps.push(m)), ...steps.finish()];
}

/** The steps as the session's commands, decided one after the other (the decider refuses an out-of-order step). */
function decideAll(steps: StreamStep[], firstTurn = 1) {
  const now = '2026-11-26T20:00:00.000Z';
  let state = agentSessionDecider.initialState();
  const start: SessionCommand = { type: 'start-session', sessionId: 's1', team: 't', persona: 'con', kind: 'task', model: 'sonnet', effort: 'standard', runtime: 'claude-code', simulated: true, prompt: 'Task T1', now };
  const commands: SessionCommand[] = [start];
  // a resumed session's stream already holds the earlier turns
  for (let turn = 1; turn < firstTurn; turn++) {
    commands.push({ type: 'record-model-call', sessionId: 's1', turn, model: 'm', stopReason: 'tool_use', content: [{ type: 'tool_use', id: `old-${turn}`, name: 'Bash', input: {} }], usage: { inputTokens: 1, outputTokens: 1, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, cacheReadTokens: 0 }, injectedMessageIds: [], durationMs: 0, now });
    if (turn < firstTurn - 1) commands.push({ type: 'record-tool-call', sessionId: 's1', turn, toolUseId: `old-${turn}`, tool: 'Bash', isError: false, content: '', filesModified: [], hooks: [], durationMs: 0, now });
  }
  for (const step of steps) {
    const { kind: _k, ...data } = step;
    commands.push(
      step.kind === 'model-call'
        ? { type: 'record-model-call', sessionId: 's1', turn: step.turn, model: step.model, stopReason: step.stopReason, content: step.content, usage: step.usage, injectedMessageIds: [], durationMs: 0, now }
        : { type: 'record-tool-call', sessionId: 's1', ...(data as Omit<Extract<StreamStep, { kind: 'tool-call' }>, 'kind'>), durationMs: 0, now },
    );
  }
  for (const command of commands) {
    for (const event of agentSessionDecider.decide(command, state)) state = agentSessionDecider.evolve(state, event);
  }
  return state;
}

describe('the Claude Code stream as a session’s steps', () => {
  it('makes one model call per API message (its content blocks merged) and one tool call per result, in an order the decider accepts', () => {
    const steps = stepsOf(recorded);
    expect(steps.map((s) => (s.kind === 'model-call' ? `model ${s.turn} ${s.stopReason}` : `${s.tool} ${s.turn}`))).toEqual([
      'model 1 tool_use',
      'Read 1',
      'model 2 tool_use',
      'Edit 2',
      'Write 2',
      'model 3 tool_use',
      'Bash 3',
      'model 4 tool_use',
      'StructuredOutput 4',
    ]);
    const second = steps[2] as Extract<StreamStep, { kind: 'model-call' }>;
    expect(second.content.map((b) => b.type === 'tool_use' ? b.name : b.type)).toEqual(['text', 'Edit', 'Write']);
    const state = decideAll(steps);
    expect(state).toMatchObject({ turns: 4, pendingToolUses: {}, toolsUsed: ['Read', 'Edit', 'Write', 'Bash', 'StructuredOutput'], filesModified: ['src/word-stats.js'] });
  });

  it('records a denied call as an error with the deny decision and no file, and a successful write with its workspace-relative file', () => {
    const tools = stepsOf(recorded).filter((s): s is Extract<StreamStep, { kind: 'tool-call' }> => s.kind === 'tool-call');
    expect(tools.find((t) => t.tool === 'Write')).toMatchObject({
      isError: true,
      filesModified: [],
      hooks: [{ event: 'PreToolUse', decision: 'deny', reason: 'Headspace policy: test/top-words.test.js is outside the owned paths (src/**)' }],
    });
    expect(tools.find((t) => t.tool === 'Edit')).toMatchObject({ isError: false, filesModified: ['src/word-stats.js'], hooks: [] });
    expect(tools.find((t) => t.tool === 'Bash')?.content).toMatch(/^> word-stats@1\.0\.0 test/);
  });

  it('counts the whole run’s usage: each message’s start, and the result’s modelUsage remainder on the call it ends', () => {
    const calls = stepsOf(recorded).filter((s): s is Extract<StreamStep, { kind: 'model-call' }> => s.kind === 'model-call');
    // the CLI prints each message with the usage of its start: one output token
    expect(calls.slice(0, 3).map((c) => c.usage.outputTokens)).toEqual([1, 1, 1]);
    const sum = (k: keyof SessionUsage) => calls.reduce((n, c) => n + c.usage[k], 0);
    const result = recorded.at(-1) as unknown as { modelUsage: Record<string, { outputTokens: number; cacheReadInputTokens: number; cacheCreationInputTokens: number }> };
    const model = Object.values(result.modelUsage)[0];
    expect(model.outputTokens).toBe(569);
    expect(sum('outputTokens')).toBe(model.outputTokens);
    expect(sum('cacheReadTokens')).toBe(model.cacheReadInputTokens);
    expect(sum('cacheWrite5mTokens')).toBe(model.cacheCreationInputTokens);
    expect(calls[0].usage).toEqual({ inputTokens: 0, outputTokens: 1, cacheWrite5mTokens: 12653, cacheWrite1hTokens: 0, cacheReadTokens: 0 });
  });

  it('leaves a subagent’s lines out of the session’s turns', () => {
    const sub = (m: ClaudeStreamMessage) => ({ ...m, parent_tool_use_id: 'toolu_parent' }) as ClaudeStreamMessage;
    const lines = [...recorded.slice(0, 4), ...recorded.slice(1, 4).map(sub), ...recorded.slice(4)];
    expect(stepsOf(lines)).toEqual(stepsOf(recorded));
  });

  it('answers a call the CLI never returned before the next turn: a resumed session continues from its open calls', () => {
    const resumed = stepsOf(recorded.slice(4), { firstTurn: 3, openToolUses: { 'old-2': 'Bash' } });
    expect(resumed[0]).toMatchObject({ kind: 'tool-call', toolUseId: 'old-2', turn: 2, isError: true, content: 'The Claude Code CLI stopped before this call returned.' });
    expect(resumed[1]).toMatchObject({ kind: 'model-call', turn: 3 });
    expect(decideAll(resumed, 3)).toMatchObject({ turns: 5, pendingToolUses: {} });
  });

  it('records a tool result that arrives before its message’s last block once that message is recorded', () => {
    // Edit's result printed before the Write block of the same message
    const lines = [...recorded.slice(0, 6), recorded[7], recorded[6], ...recorded.slice(8)];
    expect(stepsOf(lines).map((s) => (s.kind === 'model-call' ? `model ${s.turn}` : s.tool))).toEqual(stepsOf(recorded).map((s) => (s.kind === 'model-call' ? `model ${s.turn}` : s.tool)));
  });
});

describe('the CLI session id of a Headspace session', () => {
  it('is a UUID the CLI accepts, the same for the same session and different for another', () => {
    const id = claudeSessionIdOf('run-1.task.T1.a1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(claudeSessionIdOf('run-1.task.T1.a1')).toBe(id);
    expect(claudeSessionIdOf('run-1.task.T1.a2')).not.toBe(id);
  });
});

describe('ClaudeStreamSteps, the CLI’s own messages and Headspace’s hooks', () => {
  const assistant = (model: string, id: string, text: string): ClaudeStreamMessage =>
    ({ type: 'assistant', parent_tool_use_id: null, message: { id, model, content: [{ type: 'text', text }], usage: { input_tokens: 10, output_tokens: 1 } } }) as unknown as ClaudeStreamMessage;

  it('given a `<synthetic>` message (the CLI’s stand-in for a reply it never got), then no model call is recorded for it', () => {
    const steps = stepsOf([assistant('claude-sonnet-4-6', 'm1', 'hello'), assistant('<synthetic>', 'm2', 'API Error: interrupted')]);
    expect(steps.filter((s) => s.kind === 'model-call').map((s) => (s as { model: string }).model)).toEqual(['claude-sonnet-4-6']);
  });

  it('given the hook endpoint’s decisions on a call, then they are the call’s hooks (not a guess from the error text)', () => {
    const lines = [
      { type: 'assistant', parent_tool_use_id: null, message: { id: 'm1', model: 'claude-sonnet-4-6', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'rm x' } }], usage: { input_tokens: 10, output_tokens: 1 } } },
      { type: 'user', parent_tool_use_id: null, message: { content: [{ type: 'tool_result', tool_use_id: 't1', is_error: true, content: 'PreToolUse:Bash hook error: no rm' }] } },
    ] as unknown as ClaudeStreamMessage[];
    const decisions = [{ event: 'PreToolUse', decision: 'noop' }, { event: 'PreToolUse', decision: 'deny', reason: 'no rm' }];
    const call = stepsOf(lines, { hooksOf: (id) => (id === 't1' ? decisions : []) }).find((s) => s.kind === 'tool-call');
    expect(call).toMatchObject({ toolUseId: 't1', isError: true, hooks: decisions });
  });
});
