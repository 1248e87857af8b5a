import type Anthropic from '@anthropic-ai/sdk';
import { ErrorCodes } from '@headspace/contracts';
import { describe, expect, it } from 'vitest';
import { assertBreakpointOrder, buildCachedPrompt } from './cache-layers';

const tool = (name: string): Anthropic.Tool => ({ name, input_schema: { type: 'object', properties: {} } });

function cacheControls(p: ReturnType<typeof buildCachedPrompt>) {
  return [...p.tools, ...p.system].map((b) => b.cache_control?.ttl ?? null);
}

describe('prompt-cache breakpoints by layer', () => {
  it('puts a 1h breakpoint on the last tool and the last system-prompt block, 5m on hooks and skills', () => {
    const p = buildCachedPrompt({
      systemPrompt: ['identity', 'skill file'],
      tools: [tool('Read'), tool('Write')],
      hooks: 'hook policy',
      skills: ['skill a', 'skill b'],
    });
    expect(p.breakpoints).toEqual([
      { layer: 'tools', ttl: '1h' },
      { layer: 'systemPrompt', ttl: '1h' },
      { layer: 'hooks', ttl: '5m' },
      { layer: 'skills', ttl: '5m' },
    ]);
    // tools: Read, Write | system: identity, skill file, hook policy, skill a, skill b
    expect(cacheControls(p)).toEqual([null, '1h', null, '1h', '5m', null, '5m']);
    expect(p.system.map((b) => b.text)).toEqual(['identity', 'skill file', 'hook policy', 'skill a', 'skill b']);
  });

  it('keeps at most four breakpoints, dropping the earliest one a same-ttl breakpoint covers', () => {
    const p = buildCachedPrompt({
      systemPrompt: 'system',
      conventions: 'conventions',
      tools: [tool('Bash')],
      hooks: 'hooks',
      skills: 'skills',
    });
    expect(p.breakpoints).toHaveLength(4);
    expect(p.breakpoints.map((b) => b.layer)).toEqual(['systemPrompt', 'conventions', 'hooks', 'skills']);
    expect(p.tools[0].cache_control).toBeUndefined();
    const ttls = [...p.tools, ...p.system].flatMap((b) => (b.cache_control ? [b.cache_control.ttl] : []));
    expect(ttls).toEqual(['1h', '1h', '5m', '5m']);
  });

  it('never puts cache_control on the conversation and skips empty layers', () => {
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'hi' }];
    const p = buildCachedPrompt({ systemPrompt: 'system', conventions: '   ', skills: [], messages });
    expect(p.breakpoints).toEqual([{ layer: 'systemPrompt', ttl: '1h' }]);
    expect(p.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(p.tools).toEqual([]);
  });

  it('does not mutate the caller’s tool objects or keep their own cache_control', () => {
    const input = [{ ...tool('Read'), cache_control: { type: 'ephemeral' as const, ttl: '5m' as const } }, tool('Grep')];
    const p = buildCachedPrompt({ systemPrompt: 's', tools: input });
    expect(p.tools[0].cache_control).toBeUndefined();
    expect(p.tools[1].cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(input[1]).not.toHaveProperty('cache_control');
  });

  it('rejects a 1h breakpoint after a 5m one, and more than four', () => {
    expect(() => assertBreakpointOrder([{ ttl: '5m' }, { ttl: '1h' }])).toThrow(
      expect.objectContaining({ code: ErrorCodes.llmCacheLayoutInvalid }),
    );
    expect(() => assertBreakpointOrder(Array.from({ length: 5 }, () => ({ ttl: '1h' as const })))).toThrow(/at most 4/);
    expect(() => assertBreakpointOrder([{ ttl: '1h' }, { ttl: '1h' }, { ttl: '5m' }])).not.toThrow();
  });
});
