import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@headspace/contracts';
import { createGrepTool, grepTool } from './grep-tool';
import { makeTempDir, removeDir, writeFiles } from './testing/temp-workspace';
import type { ToolContext } from './types';

describe('Grep on a linear-time engine', () => {
  let root: string;
  let ctx: ToolContext;
  const evil = `${'a'.repeat(40_000)}!`;
  beforeEach(async () => {
    root = await makeTempDir();
    ctx = { workspaceRoot: root, agentId: 'con', toolUseId: 'toolu_grep' };
    await writeFiles(root, { 'evil.txt': `${evil}\n${evil}\n`, 'src/a.ts': 'const fooBar = 1;\nexport { fooBar };\n' });
  });
  afterEach(() => removeDir(root));

  it('finishes a catastrophic pattern like (a+)+$ on aaaa…a! promptly', async () => {
    const started = performance.now();
    const r = await grepTool.execute({ pattern: '(a+)+$', path: 'evil.txt', output_mode: 'count' }, ctx);
    const ms = performance.now() - started;
    // A backtracking engine needs ~2^40000 steps here; RE2 scans each line once.
    expect(ms).toBeLessThan(5_000);
    expect(r).toMatchObject({ isError: false, content: 'evil.txt:2\n(1 file)' });
  });

  it('keeps JavaScript-style syntax that RE2 shares: classes, \\b, named groups, alternation, escaped slash', async () => {
    const r = await grepTool.execute({ pattern: String.raw`\bfoo(?<rest>Bar)\b|\/nothing`, output_mode: 'content', path: 'src' }, ctx);
    expect(r.content).toBe('src/a.ts:1:const fooBar = 1;\nsrc/a.ts:2:export { fooBar };');
  });

  it.each([
    ['lookahead', 'foo(?=Bar)', 'Lookahead and lookbehind are not supported'],
    ['lookbehind', '(?<=foo)Bar', 'Lookahead and lookbehind are not supported'],
    ['backreference', '(a)\\1', 'Backreferences are not supported'],
  ])('refuses a %s with a clear TOOL.INPUT_INVALID error naming the pattern', async (_kind, pattern, hint) => {
    const r = await grepTool.execute({ pattern }, ctx);
    expect(r).toMatchObject({ isError: true, code: ErrorCodes.toolInputInvalid });
    expect(r.content).toMatch(/^pattern: /);
    expect(r.content).toContain(hint);
  });

  it('stops a call that outlives its time limit with TOOL.TIMEOUT', async () => {
    await writeFiles(root, Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`big/${i}.txt`, `${'x'.repeat(200)}\n`.repeat(2_000)])));
    const slow = createGrepTool({ timeLimitMs: 1 });
    const r = await slow.execute({ pattern: '(x+x+)+y', path: 'big' }, ctx);
    expect(r).toMatchObject({ isError: true, code: ErrorCodes.toolTimeout });
    expect(r.content).toContain('1 ms limit');
  });

  it('takes its time limit from HS_GREP_TIME_LIMIT_MS when none is given', async () => {
    await writeFiles(root, Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`big/${i}.txt`, `${'x'.repeat(200)}\n`.repeat(2_000)])));
    const before = process.env.HS_GREP_TIME_LIMIT_MS;
    process.env.HS_GREP_TIME_LIMIT_MS = '1';
    try {
      const r = await createGrepTool().execute({ pattern: 'y', path: 'big' }, ctx);
      expect(r).toMatchObject({ isError: true, code: ErrorCodes.toolTimeout });
    } finally {
      if (before === undefined) delete process.env.HS_GREP_TIME_LIMIT_MS;
      else process.env.HS_GREP_TIME_LIMIT_MS = before;
    }
  });
});
