import { describe, expect, it } from 'vitest';
import { extractJsonObject } from './text';

describe('extractJsonObject', () => {
  it('reads a fenced json block after a [simulated] prose prefix', () => {
    expect(extractJsonObject('[simulated] Done.\n\n```json\n{"a":1}\n```')).toEqual({ a: 1 });
  });
  it('falls back to the outermost braces and returns undefined when nothing parses', () => {
    expect(extractJsonObject('result: {"b":{"c":2}} ok')).toEqual({ b: { c: 2 } });
    expect(extractJsonObject('no json {here')).toBeUndefined();
  });
});
