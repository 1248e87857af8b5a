import * as Contracts from '@headspace/contracts';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { HeadspaceEvent, HeadspaceEventData, HeadspaceEventOf, HeadspaceEventType } from './headspace-event';

const definitionTypes = Object.values(Contracts as Record<string, unknown>)
  .filter((v): v is Contracts.EventDefinition => !!v && typeof v === 'object' && 'schema' in v && 'type' in v && 'service' in v && 'schemaVersion' in v)
  .map((d) => d.type);

describe('HeadspaceEvent types from the contracts', () => {
  it('covers the event types of every service (the mapping reads every exported definition)', () => {
    const sample: HeadspaceEventType[] = ['task.claimed', 'run.started', 'session.ended', 'budget.paused', 'group.triaged', 'approval.decided'];
    expect(definitionTypes).toEqual(expect.arrayContaining(sample));
    expect(new Set(definitionTypes).size).toBeGreaterThan(60);
  });

  it('types data from each event zod output and narrows the union by type', () => {
    expectTypeOf<HeadspaceEventData<'task.claimed'>>().toEqualTypeOf<Contracts.EventData<typeof Contracts.taskClaimed>>();
    expectTypeOf<HeadspaceEventOf<'task.claimed'>['type']>().toEqualTypeOf<'headspace.task.claimed'>();
    const describeEvent = (e: HeadspaceEvent): string => (e.type === 'headspace.task.claimed' ? `${e.data.owner} #${e.data.taskId}` : e.type);
    const claimed = { type: 'headspace.task.claimed', data: { team: 'a', taskId: '5', owner: 'con', attempt: 1 } } as HeadspaceEvent;
    expect(describeEvent(claimed)).toBe('con #5');
  });
});
