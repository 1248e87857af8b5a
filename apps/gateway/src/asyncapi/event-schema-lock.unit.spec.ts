import { defineEvent } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lockViolations, readLock, schemaHash, updatedLock } from './event-schema-lock';
import { publishedEvents } from './published-events';

const claimed = (schemaVersion: number, schema: z.ZodType) => defineEvent({ service: 'team-manager', category: 'task', name: 'claimed', schemaVersion, schema });
const v1 = claimed(1, z.object({ taskId: z.string(), owner: z.string() }));

describe('the event schema lock', () => {
  it('holds the schema of every published event version (run `npm run contracts:lock` for a new one)', () => {
    expect(lockViolations(publishedEvents, readLock())).toEqual([]);
  });

  it('fails an event whose schema changed under the same schemaVersion, naming it and how to bump it', () => {
    const lock = { 'task.claimed.v1': schemaHash(v1) };
    const changed = claimed(1, z.object({ taskId: z.string(), owner: z.string(), lease: z.number() }));
    const [problem, ...rest] = lockViolations([changed], lock);
    expect(rest).toEqual([]);
    expect(problem).toContain('task.claimed changed its schema without a new schemaVersion');
    expect(problem).toContain('schemaVersion: 2');
    expect(problem).toContain('npm run contracts:lock');
  });

  it('asks for the lock to be regenerated when the change comes with a new schemaVersion', () => {
    const v2 = claimed(2, z.object({ taskId: z.string(), owner: z.string(), lease: z.number() }));
    expect(lockViolations([v2], { 'task.claimed.v1': schemaHash(v1) })).toEqual([expect.stringContaining('task.claimed.v2 (team-manager) is not in the schema lock')]);
    const { lock } = updatedLock([v2], { 'task.claimed.v1': schemaHash(v1) });
    expect(Object.keys(lock)).toEqual(['task.claimed.v1', 'task.claimed.v2']);
    expect(lockViolations([v2], lock)).toEqual([]);
  });

  it('does not rewrite a locked version unless the change is accepted by name', () => {
    const changed = claimed(1, z.object({ taskId: z.string() }));
    const lock = { 'task.claimed.v1': schemaHash(v1) };
    expect(updatedLock([changed], lock)).toEqual({ lock, refused: ['task.claimed.v1'] });
    expect(updatedLock([changed], lock, ['task.claimed.v1']).lock['task.claimed.v1']).toBe(schemaHash(changed));
  });

  it('ignores rewording: a description is not a new version, a property named description is', () => {
    expect(schemaHash(claimed(1, z.object({ taskId: z.string().describe('the task'), owner: z.string() })))).toBe(schemaHash(v1));
    expect(schemaHash(claimed(1, z.object({ taskId: z.string(), owner: z.string(), description: z.string() })))).not.toBe(schemaHash(v1));
  });
});
