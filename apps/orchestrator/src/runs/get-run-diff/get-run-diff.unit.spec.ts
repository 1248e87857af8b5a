import { describe, expect, it } from 'vitest';
import { parseNumstat } from './get-run-diff.handler';

describe('parseNumstat', () => {
  it('reads added and deleted line counts per path, binary files as unknown, tabs in names kept', () => {
    const output = ['3\t1\tsrc/word-stats.js', '-\t-\tdocs/logo.png', '2\t0\tweird\tname.txt', ''].join('\0');
    expect(parseNumstat(output)).toEqual([
      { path: 'src/word-stats.js', additions: 3, deletions: 1 },
      { path: 'docs/logo.png', additions: null, deletions: null },
      { path: 'weird\tname.txt', additions: 2, deletions: 0 },
    ]);
  });

  it('gives no files for an empty diff', () => {
    expect(parseNumstat('')).toEqual([]);
  });
});
