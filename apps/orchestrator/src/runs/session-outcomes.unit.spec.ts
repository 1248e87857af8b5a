import type { RecordedEvent } from '@headspace/event-store';
import { describe, expect, it } from 'vitest';
import { givenBack } from './session-outcomes';

let position = 0n;
const toolCall = (tool: string, content: string, isError = false): RecordedEvent => {
  position++;
  return {
    eventId: `e-${position}`,
    streamId: 'session-s-1',
    streamVersion: position,
    globalPosition: position,
    transactionId: '1',
    category: 'session',
    type: 'session.tool-called',
    schemaVersion: 1,
    data: { sessionId: 's-1', turn: Number(position), toolUseId: `tu-${position}`, tool, isError, content, filesModified: [], hooks: [], durationMs: 1, at: '2026-11-25T10:00:00.000Z' },
    metadata: {},
    recordedAt: new Date('2026-11-25T10:00:00.000Z'),
  };
};
const view = (id: string, status: string) => JSON.stringify({ id, title: id, status });

describe('tasks a session gave back', () => {
  it('a task released and not claimed again was given back; one claimed again after its release was not', () => {
    const events = [
      toolCall('claim_task', view('t-1', 'claimed')),
      toolCall('claim_task', view('t-2', 'claimed')),
      toolCall('release_task', view('t-1', 'pending')),
      toolCall('release_task', view('t-2', 'pending')),
      toolCall('claim_task', view('t-2', 'claimed')),
    ];
    expect(givenBack(events)).toEqual(['t-1']);
  });

  it('a refused release, another tool, or a result that is not a task view gives nothing back', () => {
    const events = [
      toolCall('release_task', 'Refused by the team (TASK.NOT_CLAIMED): not yours', true),
      toolCall('complete_task', view('t-3', 'complete')),
      toolCall('release_task', 'not json'),
      toolCall('Bash', view('t-4', 'pending')),
    ];
    expect(givenBack(events)).toEqual([]);
  });
});
