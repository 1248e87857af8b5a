import { describe, expect, it } from 'vitest';
import { categoryOf, deterministicEventId, newEventId } from './event-id';

describe('event ids', () => {
  it('derive the same id from the same command, stream and index, and different ids otherwise', () => {
    const id = deterministicEventId('cmd-1', 'task-1', 0);
    expect(deterministicEventId('cmd-1', 'task-1', 0)).toBe(id);
    expect(deterministicEventId('cmd-1', 'task-1', 1)).not.toBe(id);
    expect(deterministicEventId('cmd-2', 'task-1', 0)).not.toBe(id);
    expect(deterministicEventId('cmd-1', 'task-2', 0)).not.toBe(id);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('new ids are unique and the category is the stream id prefix', () => {
    expect(newEventId()).not.toBe(newEventId());
    expect(categoryOf('task-7f3a-9')).toBe('task');
    expect(categoryOf('single')).toBe('single');
  });
});
