import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { MAX_REPORTED_ISSUES, ValidationError, parseOrThrow } from './errors/validation-error';
import { boundedJson, boundedJsonObject, nulCharacterPath, refuseNulCharacters } from './json.contracts';
import { requestApproval } from './team-manager/approval.contracts';

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

function failure(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('bounded free-form JSON', () => {
  const approval = { team: 'alpha', kind: 'plan-approval', requester: 'con', summary: 'plan', timeoutMs: 1_000 };

  it('an approval payload nested 100,000 levels is a validation error naming the payload, not a stack overflow', () => {
    const error = failure(() => parseOrThrow(requestApproval.request, { ...approval, payload: nested(100_000) }, 'request'));
    expect(error.field).toBe('payload.a');
    expect(error.message).toMatch(/at most 32 levels/);
  });

  it('an approval payload within the depth bound is accepted, and one over its byte bound is refused', () => {
    expect(parseOrThrow(requestApproval.request, { ...approval, payload: nested(31) as Record<string, unknown> }, 'request').payload).toBeDefined();
    const error = failure(() => parseOrThrow(requestApproval.request, { ...approval, payload: { text: 'x'.repeat(20_000) } }, 'request'));
    expect(error.field).toBe('payload');
    expect(error.message).toMatch(/at most 16384 bytes/);
  });

  it('the bounds apply to any value and to objects of any keys', () => {
    const schema = z.object({ details: boundedJson({ maxDepth: 3, maxBytes: 100 }), tags: boundedJsonObject({ maxDepth: 2, maxBytes: 1_000 }) });
    expect(schema.safeParse({ details: [[['ok']]], tags: { a: { b: 1 } } }).success).toBe(true);
    expect(failure(() => parseOrThrow(schema, { details: [[[['deep']]]], tags: {} }, 'x')).field).toBe('details.0');
    expect(failure(() => parseOrThrow(schema, { details: 'x'.repeat(200), tags: {} }, 'x')).field).toBe('details');
    expect(failure(() => parseOrThrow(schema, { details: 1, tags: { a: { b: { c: 1 } } } }, 'x')).field).toBe('tags.a');
  });
});

describe('NUL characters', () => {
  it('are found in nested strings and keys, with the path of the field', () => {
    expect(nulCharacterPath({ name: 'ok', payload: { plan: ['fine', 'x\u0000'] } })).toBe('payload.plan.1');
    expect(nulCharacterPath({ metadata: { 'o\u0000k': 1 } })).toBe('metadata.o\\u0000k');
    expect(nulCharacterPath('a\u0000')).toBe('(root)');
    expect(nulCharacterPath({ name: 'ok', n: 1, list: [null, true, { deep: 'clean' }] })).toBeUndefined();
  });

  it('are refused as a validation error naming the field', () => {
    const error = failure(() => refuseNulCharacters({ description: 'a\u0000b' }, 'request'));
    expect(error.code).toBe('CONTRACTS.VALIDATION_FAILED');
    expect(error.field).toBe('description');
  });

  it('a value of 100,000 keys is searched without building a path for each', () => {
    const wide = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]));
    expect(nulCharacterPath({ wide, last: 'x\u0000' })).toBe('last');
  });
});

describe('validation errors', () => {
  it(`report at most ${MAX_REPORTED_ISSUES} issues and how many there were, so 100,000 bad values do not answer megabytes`, () => {
    const error = failure(() => parseOrThrow(z.record(z.string(), z.string()), Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i])), 'request'));
    expect(error.issues).toHaveLength(MAX_REPORTED_ISSUES);
    expect(error.details).toMatchObject({ issueCount: 100_000 });
    expect(error.message.length).toBeLessThan(10_000);
    expect(error.field).toBe('k0');
  });
});
