import type { RecordedEvent } from '@headspace/event-store';
import { describe, expect, it } from 'vitest';
import { givenBack } from './session-outcomes';

const at = '2026-11-25T10:00:00.000Z';
let position = 0n;
const recorded = (type: string, data: Record<string, unknown>): RecordedEvent => {
  position++;
  return {
    eventId: `e-${position}`,
    streamId: 'session-s-1',
    streamVersion: position,
    globalPosition: position,
    transactionId: '1',
    category: 'session',
    type,
    schemaVersion: 1,
    data: { sessionId: 's-1', ...data, at },
    metadata: {},
    recordedAt: new Date(at),
  };
};
/** The model asking for the tool, then the tool's result. */
const call = (tool: string, input: Record<string, unknown>, content: string, isError = false): RecordedEvent[] => {
  const toolUseId = `tu-${position + 1n}`;
  return [
    recorded('session.model-called', { turn: 1, content: [{ type: 'tool_use', id: toolUseId, name: tool, input }], stopReason: 'tool_use' }),
    recorded('session.tool-called', { turn: 1, toolUseId, tool, isError, content, filesModified: [], hooks: [], durationMs: 1 }),
  ];
};
const view = (id: string, status: string) => JSON.stringify({ id, title: id, status });

describe('tasks a session gave back', () => {
  it('a task released and not claimed again was given back, with the reason the agent gave; one claimed again after its release was not', () => {
    const events = [
      ...call('claim_task', { task_id: 't-1' }, view('t-1', 'claimed')),
      ...call('claim_task', { task_id: 't-2' }, view('t-2', 'claimed')),
      ...call('release_task', { task_id: 't-1', reason: 'The schema has no email column' }, view('t-1', 'pending')),
      ...call('release_task', { task_id: 't-2', reason: 'Blocked' }, view('t-2', 'pending')),
      ...call('claim_task', { task_id: 't-2' }, view('t-2', 'claimed')),
    ];
    expect(givenBack(events)).toEqual([{ taskId: 't-1', reason: 'The schema has no email column' }]);
  });

  it('a refused release, another tool, or a result that is not a task view gives nothing back', () => {
    const events = [
      ...call('release_task', { task_id: 't-1', reason: 'x' }, 'Refused by the team (TASK.NOT_CLAIMED): not yours', true),
      ...call('complete_task', { task_id: 't-3', summary: 'done' }, view('t-3', 'complete')),
      ...call('release_task', { task_id: 't-4', reason: 'x' }, 'not json'),
      ...call('Bash', { command: 'true' }, view('t-5', 'pending')),
    ];
    expect(givenBack(events)).toEqual([]);
  });
});
