import { describe, expect, it } from 'vitest';
import { parsePorcelain } from './git';

describe('git porcelain parsing', () => {
  it('reads modified, added and untracked paths, and the new path of a rename', () => {
    const out = [' M src/a.js', 'A  new.js', '?? notes/todo.md', 'R  moved.js', 'old.js', ''].join('\0');
    expect(parsePorcelain(out)).toEqual([
      { status: ' M', path: 'src/a.js' },
      { status: 'A ', path: 'new.js' },
      { status: '??', path: 'notes/todo.md' },
      { status: 'R ', path: 'moved.js' },
    ]);
  });
});
