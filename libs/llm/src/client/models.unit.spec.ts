import { ErrorCodes, HeadspaceError } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { contextWindowFor, MODEL_TABLE, modelFamily, resolveModel } from './models';

describe('model aliases', () => {
  it('maps opus, sonnet and haiku to the concrete ids of the one alias table', () => {
    expect(resolveModel('opus')).toBe(MODEL_TABLE.opus.id);
    expect(resolveModel('sonnet')).toBe(MODEL_TABLE.sonnet.id);
    expect(resolveModel('haiku')).toBe(MODEL_TABLE.haiku.id);
    expect(MODEL_TABLE.opus.id).toMatch(/^claude-opus-/);
    expect(MODEL_TABLE.sonnet.id).toMatch(/^claude-sonnet-/);
    expect(MODEL_TABLE.haiku.id).toMatch(/^claude-haiku-/);
  });

  it('maps sonnet to Sonnet 4.6, not Sonnet 4.5 (end-of-life 2026-11-30)', () => {
    expect(resolveModel('sonnet')).toBe('claude-sonnet-4-6');
    expect(resolveModel('inherit', 'sonnet')).toBe('claude-sonnet-4-6');
  });

  it('resolves inherit to the parent model, resolving a parent alias too', () => {
    expect(resolveModel('inherit', 'claude-opus-4-6')).toBe('claude-opus-4-6');
    expect(resolveModel('inherit', 'haiku')).toBe(MODEL_TABLE.haiku.id);
  });

  it('refuses inherit without a parent model', () => {
    expect(() => resolveModel('inherit')).toThrow(HeadspaceError);
    expect(() => resolveModel('inherit', 'inherit')).toThrow(
      expect.objectContaining({ code: ErrorCodes.llmInheritWithoutParent, field: 'model' }),
    );
  });

  it('passes concrete claude ids through unchanged', () => {
    expect(resolveModel('claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5-20250929');
  });

  it('rejects an unknown alias with LLM.UNKNOWN_MODEL_ALIAS naming the model field', () => {
    let caught: unknown;
    try {
      resolveModel('gpt-5');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(HeadspaceError);
    expect((caught as HeadspaceError).code).toBe('LLM.UNKNOWN_MODEL_ALIAS');
    expect((caught as HeadspaceError).field).toBe('model');
  });

  it('tells the family of ids and aliases and knows the context window', () => {
    expect(modelFamily(MODEL_TABLE.haiku.id)).toBe('haiku');
    expect(modelFamily('claude-opus-4-6')).toBe('opus');
    expect(modelFamily('mystery')).toBeUndefined();
    expect(contextWindowFor(MODEL_TABLE.sonnet.id)).toBe(1_000_000);
    expect(contextWindowFor(MODEL_TABLE.opus.id)).toBe(1_000_000);
    expect(contextWindowFor(MODEL_TABLE.haiku.id)).toBe(200_000);
    expect(contextWindowFor('claude-sonnet-4-5-20250929')).toBe(200_000);
  });
});
