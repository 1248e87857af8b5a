import { DeciderSpec } from '@headspace/event-store';
import { describe, expect, it } from 'vitest';
import { agentSessionDecider, type SessionEvent } from './agent-session.decider';
import { conversationOf } from './session-conversation';

const now = '2026-11-22T10:00:00.000Z';
const usage = { inputTokens: 100, outputTokens: 20, cacheWrite5mTokens: 0, cacheWrite1hTokens: 50, cacheReadTokens: 0 };
const started: SessionEvent = {
  type: 'session.started',
  data: {
    sessionId: 's-1',
    team: 'red',
    persona: 'con',
    kind: 'task',
    taskId: 't-1',
    model: 'claude-sonnet-4-5',
    effort: 'standard',
    runtime: 'built-in',
    simulated: true,
    prompt: 'Implement the parser',
    startedAt: now,
  },
};
const toolUse = { type: 'tool_use', id: 'tu-1', name: 'Write', input: { file_path: 'a.ts', content: 'x' } };
const turn1: SessionEvent = {
  type: 'session.model-called',
  data: { sessionId: 's-1', turn: 1, model: 'claude-sonnet-4-5', stopReason: 'tool_use', content: [toolUse], usage, injectedMessageIds: [], durationMs: 5, at: now },
};
const toolDone: SessionEvent = {
  type: 'session.tool-called',
  data: { sessionId: 's-1', turn: 1, toolUseId: 'tu-1', tool: 'Write', isError: false, content: 'wrote a.ts', filesModified: ['a.ts'], hooks: [], durationMs: 1, at: now },
};
const recordTurn = (turn: number) => ({ ...turn1.data, type: 'record-model-call' as const, turn, now }) as const;
const { at: _at, ...toolData } = toolDone.data;
const recordTool = { ...toolData, type: 'record-tool-call' as const, now };
const codeIs = (code: string) => (error: unknown) => (error as { code?: string }).code === code;

describe('agent session decider', () => {
  it('starting a session records who runs what on which model', () => {
    const { startedAt: _s, ...data } = started.data;
    DeciderSpec.for(agentSessionDecider).given([]).when({ ...data, type: 'start-session', now }).then([started]);
  });

  it('starting an existing session again appends nothing', () => {
    const { startedAt: _s, ...data } = started.data;
    DeciderSpec.for(agentSessionDecider).given([started]).when({ ...data, type: 'start-session', now }).then([]);
  });

  it('a turn already recorded is not recorded twice (a resumed orchestrator repeating itself)', () => {
    DeciderSpec.for(agentSessionDecider).given([started, turn1, toolDone]).when(recordTurn(1)).then([]);
  });

  it('a turn that skips ahead is refused as out of order', () => {
    DeciderSpec.for(agentSessionDecider).given([started]).when(recordTurn(2)).thenThrows(codeIs('SESSION.TURN_OUT_OF_ORDER'));
  });

  it('the next turn waits until every tool call of the last one is answered', () => {
    DeciderSpec.for(agentSessionDecider).given([started, turn1]).when(recordTurn(2)).thenThrows(codeIs('SESSION.TURN_OUT_OF_ORDER'));
  });

  it('a tool result for a tool the model never asked for is refused', () => {
    DeciderSpec.for(agentSessionDecider)
      .given([started, turn1])
      .when({ ...recordTool, toolUseId: 'tu-9' })
      .thenThrows(codeIs('SESSION.UNKNOWN_TOOL_USE'));
  });

  it('a completed tool call recorded again appends nothing, so its side effect is never repeated', () => {
    DeciderSpec.for(agentSessionDecider).given([started, turn1, toolDone]).when(recordTool).then([]);
  });

  it('ending sums the turns, usage, tools and files of the whole session', () => {
    const events = agentSessionDecider.decide(
      { type: 'end-session', sessionId: 's-1', exitReason: 'completed', summary: 'done', now },
      [started, turn1, toolDone].reduce(agentSessionDecider.evolve, agentSessionDecider.initialState()),
    );
    expect(events).toEqual([
      {
        type: 'session.ended',
        data: { sessionId: 's-1', exitReason: 'completed', summary: 'done', turns: 1, usage, toolsUsed: ['Write'], filesModified: ['a.ts'], at: now },
      },
    ]);
  });

  it('nothing is recorded on an ended session', () => {
    const ended: SessionEvent = {
      type: 'session.ended',
      data: { sessionId: 's-1', exitReason: 'completed', summary: 'done', turns: 1, usage, toolsUsed: [], filesModified: [], at: now },
    };
    DeciderSpec.for(agentSessionDecider)
      .given([started, turn1, toolDone, ended])
      .when({ type: 'record-budget-decision', sessionId: 's-1', turn: 2, decision: 'allowed', model: 'x', now })
      .thenThrows(codeIs('SESSION.ALREADY_ENDED'));
  });

  it('a running session records its next turn, the tool result the model asked for, and its budget decision', () => {
    DeciderSpec.for(agentSessionDecider).given([started]).when(recordTurn(1)).then([turn1]);
    DeciderSpec.for(agentSessionDecider).given([started, turn1]).when(recordTool).then([toolDone]);
    DeciderSpec.for(agentSessionDecider)
      .given([started, turn1, toolDone])
      .when({ type: 'record-budget-decision', sessionId: 's-1', turn: 2, decision: 'downgraded', model: 'claude-haiku-4-5', now })
      .then([{ type: 'session.budget-decided', data: { sessionId: 's-1', turn: 2, decision: 'downgraded', model: 'claude-haiku-4-5', at: now } }]);
  });

  it('a handoff and a reflection are recorded once each', () => {
    const handedOff: SessionEvent = { type: 'session.handed-off', data: { sessionId: 's-1', handoff: { next: 'finish the parser' }, contextUsedPercent: 81, at: now } };
    const reflected: SessionEvent = { type: 'session.reflected', data: { sessionId: 's-1', reflection: { learned: 'x' }, malformed: false, at: now } };
    const handoff = { type: 'record-handoff' as const, sessionId: 's-1', handoff: { next: 'finish the parser' }, contextUsedPercent: 81, now };
    const reflection = { type: 'record-reflection' as const, sessionId: 's-1', reflection: { learned: 'x' }, malformed: false, now };
    DeciderSpec.for(agentSessionDecider).given([started, turn1]).when(handoff).then([handedOff]);
    DeciderSpec.for(agentSessionDecider).given([started, turn1, handedOff]).when(handoff).then([]);
    DeciderSpec.for(agentSessionDecider).given([started, turn1]).when(reflection).then([reflected]);
    DeciderSpec.for(agentSessionDecider).given([started, turn1, reflected]).when(reflection).then([]);
    DeciderSpec.for(agentSessionDecider).given([]).when(handoff).thenThrows(codeIs('SESSION.NOT_FOUND'));
  });

  it('ending a session twice records nothing the second time', () => {
    const ended: SessionEvent = {
      type: 'session.ended',
      data: { sessionId: 's-1', exitReason: 'completed', summary: 'done', turns: 1, usage, toolsUsed: [], filesModified: [], at: now },
    };
    DeciderSpec.for(agentSessionDecider).given([started, ended]).when({ type: 'end-session', sessionId: 's-1', exitReason: 'error', summary: 'again', now }).then([]);
  });

  it('recording on a session that never started is refused as not found', () => {
    DeciderSpec.for(agentSessionDecider).given([]).when(recordTurn(1)).thenThrows(codeIs('SESSION.NOT_FOUND'));
  });
});

describe('session conversation', () => {
  it('rebuilds the exact Messages-API conversation, tool results and injected mail included', () => {
    const turn2: SessionEvent = {
      type: 'session.model-called',
      data: { ...turn1.data, turn: 2, stopReason: 'end_turn', content: [{ type: 'text', text: 'done' }], injectedText: '<teammate-message teammate_id="al" type="message">hi</teammate-message>' },
    };
    expect(conversationOf([started, turn1, toolDone, turn2])).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Implement the parser' }] },
      { role: 'assistant', content: [toolUse] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'tu-1', content: 'wrote a.ts' },
          { type: 'text', text: '<teammate-message teammate_id="al" type="message">hi</teammate-message>' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
    ]);
  });

  it('ends with the answered tool results when the crash came before the next model call', () => {
    const messages = conversationOf([started, turn1, toolDone]);
    expect(messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu-1', content: 'wrote a.ts' }] });
  });

  describe('compaction', () => {
    const compactedData = { sessionId: 's-1', turn: 1, trigger: 'auto' as const, model: 'claude-sonnet-4-5', summary: 'Wrote a.ts; next: tests.', preserved: '[PRESERVE_VERBATIM file-path]\nsrc/a.ts', preservedItems: 1, sessionFile: '.headspace/session-state.json', contextTokens: 170_000, thresholdPercent: 83.5, usage };
    const compacted: SessionEvent = { type: 'session.compacted', data: { ...compactedData, at: now } };
    const compact = { ...compactedData, type: 'record-compaction' as const, now };

    it('a session compacts after a turn whose tool calls are all answered', () => {
      DeciderSpec.for(agentSessionDecider).given([started, turn1, toolDone]).when(compact).then([compacted]);
    });

    it('compacting the same turn again appends nothing (a resumed session repeating the step)', () => {
      DeciderSpec.for(agentSessionDecider).given([started, turn1, toolDone, compacted]).when(compact).then([]);
    });

    it('compaction with a tool call of the turn unanswered is refused', () => {
      DeciderSpec.for(agentSessionDecider).given([started, turn1]).when(compact).thenThrows(codeIs('SESSION.TURN_OUT_OF_ORDER'));
    });

    it('the summarising call counts in the session’s usage', () => {
      const state = [started, turn1, toolDone, compacted].reduce(agentSessionDecider.evolve, agentSessionDecider.initialState());
      expect(state).toMatchObject({ compactedThroughTurn: 1, compactions: 1, usage: { inputTokens: 200, outputTokens: 40 } });
    });

    it('the conversation after a compaction is the task and the summary with what was preserved, then the turns after it', () => {
      const turn2: SessionEvent = { type: 'session.model-called', data: { ...turn1.data, turn: 2, stopReason: 'end_turn', content: [{ type: 'text', text: 'done' }] } };
      const messages = conversationOf([started, turn1, toolDone, compacted, turn2]);
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      const [task, summary] = messages[0].content.map((b) => String(b.text));
      expect(task).toBe('Implement the parser');
      expect(summary).toContain('turns 1–1 are summarised below');
      expect(summary).toContain('<session-summary>\nWrote a.ts; next: tests.\n</session-summary>');
      expect(summary).toContain('src/a.ts');
      expect(messages[1].content).toEqual([{ type: 'text', text: 'done' }]);
    });
  });
});
