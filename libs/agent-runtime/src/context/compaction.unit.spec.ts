import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '@headspace/contracts';
import { compactPercentOf, preservedItems, renderPreserved, triageConversation } from './compaction';
import { ContextWindow } from './context-window';

const conversation = [
  { role: 'user', content: [{ type: 'text', text: 'Fix the config loader.' }] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me think: first, I read the loader.' },
      { type: 'tool_use', id: 'tu-1', name: 'Bash', input: { command: 'node load.js' } },
      { type: 'tool_use', id: 'tu-2', name: 'Grep', input: { pattern: 'config' } },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'tu-1', content: "Error: ENOENT: no such file or directory, open 'config/app.json'" },
      { type: 'tool_result', tool_use_id: 'tu-2', content: 'src/a.ts:1\nsrc/b.ts:2\nsrc/c.ts:3' },
    ],
  },
];

describe('compaction helpers', () => {
  it('triage keeps errors verbatim, drops tool metadata and search results, compresses reasoning', () => {
    const window = triageConversation(conversation, new ContextWindow({ windowTokens: 200_000, env: {} }));
    const byCategory = (c: string) => window.list().filter((i) => i.category === c).map((i) => i.kind);
    expect(byCategory('PRESERVE_VERBATIM')).toEqual(['user-requirement', 'error-message']);
    expect(byCategory('EPHEMERAL')).toEqual(['tool-call-metadata', 'tool-call-metadata', 'raw-search-results']);
    expect(byCategory('COMPRESS_AGGRESSIVE')).toEqual(['reasoning-chain']);
    expect(window.turn).toBe(1);
  });

  it('the same content triaged twice is one item (compacting again does not duplicate the session file)', () => {
    const window = new ContextWindow({ windowTokens: 200_000, env: {} });
    triageConversation(conversation, window);
    triageConversation(conversation, window);
    expect(preservedItems(window)).toHaveLength(2);
  });

  it('renders preserved items whole, newest kept when they do not all fit', () => {
    const window = triageConversation(conversation, new ContextWindow({ windowTokens: 200_000, env: {} }));
    const all = renderPreserved(preservedItems(window));
    expect(all).toContain("[PRESERVE_VERBATIM error-message from Bash]\nError: ENOENT: no such file or directory, open 'config/app.json'");
    const tight = renderPreserved(preservedItems(window), 120);
    expect(tight).toContain('ENOENT');
    expect(tight).not.toContain('Fix the config loader.');
    expect(tight).toContain('(1 older preserved item only in the session-state file)');
  });

  it('the compaction threshold is the first override set (ours, Claude Code’s, the seed’s), else the seed default', () => {
    expect(compactPercentOf(200_000, {})).toEqual({ percent: 83.5, source: 'default' });
    expect(compactPercentOf(1_000_000, {})).toEqual({ percent: 85, source: 'default' });
    expect(compactPercentOf(200_000, { CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: '60', BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE: 70 })).toEqual({ percent: 60, source: 'CLAUDE_AUTOCOMPACT_PCT_OVERRIDE' });
    expect(() => compactPercentOf(200_000, { BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE: '0' })).toThrow(expect.objectContaining({ code: ErrorCodes.contextThresholdInvalid, field: 'BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE' }));
  });
});
