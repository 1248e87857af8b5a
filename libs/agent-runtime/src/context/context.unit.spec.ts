import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HeadspaceError } from '@headspace/contracts';
import { classifyContextItem } from './triage';
import { ContextWindow } from './context-window';
import { estimateTokens, TurnTokenCounter } from './tokens';
import { resolveContextThresholds } from './thresholds';
import { MessageIngestor } from './ingest';

describe('token counting', () => {
  it('estimates about four characters per token', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('x'.repeat(4000))).toBe(1000);
  });

  it('uses the API usage numbers once known and adds estimates of later turns on top', () => {
    const c = new TurnTokenCounter();
    c.addEstimate(1, 'x'.repeat(400)); // 100
    c.addEstimate(2, 'x'.repeat(400)); // 100
    expect(c.contextTokens()).toBe(200);
    c.recordUsage(2, { input_tokens: 50, output_tokens: 20, cache_read_input_tokens: 900, cache_creation_input_tokens: 30 });
    expect(c.contextTokens()).toBe(1000);
    c.addEstimate(3, 'x'.repeat(40)); // 10
    expect(c.contextTokens()).toBe(1010);
    expect(c.cacheHitRate()).toBeCloseTo(900 / 980, 6);
  });
});

describe('semantic triage (seed 003 Requirement 2)', () => {
  const cases: Array<[string, Parameters<typeof classifyContextItem>[0], string, string]> = [
    ['a stack trace', { source: 'tool_result', content: 'TypeError: x is undefined\n    at run (/app/src/main.ts:10:5)' }, 'PRESERVE_VERBATIM', 'stack-trace'],
    ['an error message', { source: 'tool_result', content: "Error: ENOENT: no such file or directory, open 'a.txt'" }, 'PRESERVE_VERBATIM', 'error-message'],
    ['test output', { source: 'tool_result', content: 'Test Files  3 passed (3)\n Tests  12 passed, 1 failed' }, 'PRESERVE_VERBATIM', 'test-output'],
    ['a git diff hunk', { source: 'tool_result', content: 'diff --git a/x.ts b/x.ts\n@@ -1,3 +1,4 @@\n+const a = 1;' }, 'PRESERVE_VERBATIM', 'git-diff-hunk'],
    ['an exit code', { source: 'tool_result', content: 'Process exited with code 137' }, 'PRESERVE_VERBATIM', 'exit-code'],
    ['a file path', { source: 'assistant', content: 'The handler lives in libs/agent-runtime/src/context/handoff.ts now.' }, 'PRESERVE_VERBATIM', 'file-path'],
    ['a declaration', { source: 'assistant', content: 'export const MAX_RETRIES = 5' }, 'PRESERVE_VERBATIM', 'declaration'],
    ['a version number', { source: 'assistant', content: 'Upgrade to zod 4.1.12 first' }, 'PRESERVE_VERBATIM', 'version-number'],
    ['an environment variable', { source: 'assistant', content: 'Set DATABASE_URL=postgres://localhost/hs before starting' }, 'PRESERVE_VERBATIM', 'environment-variable'],
    ['an API response', { source: 'tool_result', content: 'HTTP/1.1 404 Not Found\ncontent-type: application/json' }, 'PRESERVE_VERBATIM', 'api-response'],
    ['a user requirement', { source: 'user', content: 'Every dashboard must say simulated when no API key is set' }, 'PRESERVE_VERBATIM', 'user-requirement'],
    ['a decision record', { source: 'assistant', content: 'Decision: we keep one stream per task and version every payload' }, 'PRESERVE_STRUCTURED', 'decision-record'],
    ['acceptance criteria', { source: 'user', content: 'Acceptance criteria\nGiven a claimed task\nWhen the lease expires\nThen it is free again' }, 'PRESERVE_VERBATIM', 'user-requirement'],
    ['acceptance criteria from the assistant', { source: 'assistant', content: 'Given a claimed task\nWhen the lease expires\nThen it is free again' }, 'PRESERVE_STRUCTURED', 'acceptance-criteria'],
    ['a task list', { source: 'assistant', content: '- [x] parse the manifest\n- [ ] write the projection' }, 'PRESERVE_STRUCTURED', 'task-list'],
    ['a schema', { source: 'assistant', content: 'CREATE TABLE tasks (id text primary key)' }, 'PRESERVE_STRUCTURED', 'schema'],
    ['reasoning', { source: 'assistant', content: 'Let me think about which approach is simpler here, because the queue is small' }, 'COMPRESS_AGGRESSIVE', 'reasoning-chain'],
    ['alternatives', { source: 'assistant', content: 'Alternatively we could poll instead of subscribing' }, 'COMPRESS_AGGRESSIVE', 'alternatives-considered'],
    ['tool call metadata', { source: 'tool_use', content: '{"name":"Read","input":{}}' }, 'EPHEMERAL', 'tool-call-metadata'],
    ['raw search results', { source: 'tool_result', toolName: 'Grep', content: 'a.ts:1:foo\nb.ts:2:foo\nc.ts:3:foo' }, 'EPHEMERAL', 'raw-search-results'],
    ['intermediate compilation output', { source: 'tool_result', content: 'Compiling 42 files with swc\nwebpack compiled successfully' }, 'EPHEMERAL', 'compilation-output'],
  ];
  for (const [what, input, category, kind] of cases) {
    it(`classifies ${what} as ${category}`, () => {
      expect(classifyContextItem(input)).toEqual({ category, kind });
    });
  }

  it('keeps compilation output with an error in it verbatim', () => {
    expect(classifyContextItem({ source: 'tool_result', content: 'Compiling 3 files\nsrc/a.ts(3,1): error TS2304: Cannot find name x' }).category).toBe('PRESERVE_VERBATIM');
  });
});

describe('thresholds', () => {
  it('hands off at 80% by default and knows the seed compaction points', () => {
    const t = resolveContextThresholds({ windowTokens: 200_000, env: {} });
    expect(t).toMatchObject({ handoffPercent: 80, handoffAtTokens: 160_000, compactPercent: 83.5, compactAtTokens: 167_000, source: 'default' });
    expect(resolveContextThresholds({ windowTokens: 1_000_000, env: {} }).compactAtTokens).toBe(850_000);
  });

  it('takes a configured percentage and lets the env override win', () => {
    expect(resolveContextThresholds({ windowTokens: 1000, handoffPercent: 70, env: {} })).toMatchObject({ handoffAtTokens: 700, source: 'config' });
    expect(resolveContextThresholds({ windowTokens: 1000, handoffPercent: 70, env: { HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE: '50' } })).toMatchObject({ handoffAtTokens: 500, source: 'env' });
    expect(resolveContextThresholds({ windowTokens: 1000, env: { BRAINMASS_AUTOCOMPACT_PCT_OVERRIDE: '60' } }).handoffAtTokens).toBe(600);
  });

  it('rejects an override outside 1-100 naming the variable', () => {
    try {
      resolveContextThresholds({ windowTokens: 1000, env: { HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE: '120' } });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(HeadspaceError);
      expect((err as HeadspaceError).code).toBe('CONTEXT.THRESHOLD_INVALID');
      expect((err as HeadspaceError).field).toBe('HEADSPACE_AUTOCOMPACT_PCT_OVERRIDE');
    }
  });
});

describe('context window', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hs-ctx-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reports health metrics by category, staleness and cache hit rate', () => {
    const w = new ContextWindow({ windowTokens: 1000, env: {} });
    w.beginTurn();
    const err = w.add({ source: 'tool_result', content: 'Error: boom'.padEnd(400, '!') }); // 100 tokens verbatim
    w.add({ source: 'assistant', content: 'Alternatively we could retry'.padEnd(200, '.') }); // 50 compressible
    const grep = w.add({ source: 'tool_result', toolName: 'Grep', content: 'x'.repeat(80) }); // 20 ephemeral
    for (let i = 0; i < 12; i++) w.beginTurn();
    w.reference(err.id);
    w.recordUsage({ input_tokens: 100, output_tokens: 50, cache_read_input_tokens: 300, cache_creation_input_tokens: 100 });
    const h = w.health();
    expect(h).toMatchObject({ totalTokens: 550, freePercent: 45, preservedTokens: 100, compressibleTokens: 50, ephemeralTokens: 20, cacheHitRate: 0.6, shouldHandoff: false });
    expect(h.stalenessDistribution).toEqual({ fresh: 1, aging: 0, stale: 2 });
    expect(w.staleness(grep)).toBe(12);
    expect(w.clearStale(5).map((i) => i.id)).toEqual([grep.id]);
  });

  it('signals a handoff once the used tokens reach the threshold', () => {
    const w = new ContextWindow({ windowTokens: 1000, env: {} });
    w.beginTurn();
    w.add({ source: 'assistant', content: 'x'.repeat(3_000) });
    expect(w.shouldHandoff()).toBe(false);
    w.beginTurn();
    w.add({ source: 'assistant', content: 'x'.repeat(200) });
    expect(w.usedTokens()).toBe(800);
    expect(w.shouldHandoff()).toBe(true);
  });

  it('persists preserved items to the session file and loads them back', async () => {
    const w = new ContextWindow({ windowTokens: 10_000, env: {} });
    w.add({ source: 'tool_result', content: 'Error: disk full\n' });
    w.add({ source: 'assistant', content: 'Decision: shard by team id' });
    w.add({ source: 'assistant', content: 'let me think about it because reasons' });
    const file = join(dir, '.headspace', 'session-state.json');
    expect(await w.saveSessionFile(file)).toBe(2);
    expect(JSON.parse(await readFile(file, 'utf8')).items).toHaveLength(2);
    const next = new ContextWindow({ windowTokens: 10_000, env: {} });
    expect(await next.loadSessionFile(file)).toBe(2);
    expect(next.list().map((i) => i.content)).toEqual(['Error: disk full\n', 'Decision: shard by team id']);
    expect(await next.loadSessionFile(join(dir, 'missing.json'))).toBe(0);
  });
});

describe('ingesting Messages API blocks', () => {
  it('triages each block: tool calls ephemeral, search results ephemeral, tool errors verbatim, thinking compressible', () => {
    const w = new ContextWindow({ windowTokens: 10_000, env: {} });
    const ingest = new MessageIngestor(w);
    w.beginTurn();
    ingest.ingest({ role: 'user', content: 'Make the claim endpoint return 409 on conflicts' });
    ingest.ingest({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'First I should look for the handler' },
        { type: 'text', text: 'Searching for the handler.' },
        { type: 'tool_use', id: 'toolu_1', name: 'Grep', input: { pattern: 'claim' } },
        { type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'npm test' } },
      ],
    });
    const results = ingest.ingest({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'src/claim.ts' }] },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: 'command failed', is_error: true },
      ],
    });
    expect(results.map((r) => [r.toolName, r.category, r.kind])).toEqual([
      ['Grep', 'EPHEMERAL', 'raw-search-results'],
      ['Bash', 'PRESERVE_VERBATIM', 'tool-error'],
    ]);
    expect(w.list().map((i) => i.category)).toEqual([
      'PRESERVE_VERBATIM',
      'COMPRESS_AGGRESSIVE',
      'COMPRESS_AGGRESSIVE',
      'EPHEMERAL',
      'EPHEMERAL',
      'EPHEMERAL',
      'PRESERVE_VERBATIM',
    ]);
  });
});
