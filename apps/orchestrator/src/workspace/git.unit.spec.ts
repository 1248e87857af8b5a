import { describe, expect, it } from 'vitest';
import { branchOfHeader, hasConflictMarkers, isUnmerged, parsePorcelain } from './git';

describe('git porcelain parsing', () => {
  it('reads modified, added and untracked paths, and the new path of a rename or copy', () => {
    const out = [' M src/a.js', 'A  new.js', '?? notes/todo.md', 'R  moved.js', 'old.js', 'C  twin.js', 'a.js', ''].join('\0');
    expect(parsePorcelain(out)).toEqual([
      { status: ' M', path: 'src/a.js' },
      { status: 'A ', path: 'new.js' },
      { status: '??', path: 'notes/todo.md' },
      { status: 'R ', path: 'moved.js' },
      { status: 'C ', path: 'twin.js' },
    ]);
  });

  it('keeps spaces and newlines inside file names', () => {
    expect(parsePorcelain(['?? my notes.md', ' M odd\nname.txt', ''].join('\0'))).toEqual([
      { status: '??', path: 'my notes.md' },
      { status: ' M', path: 'odd\nname.txt' },
    ]);
  });

  it('reads nothing from a clean tree', () => {
    expect(parsePorcelain('')).toEqual([]);
  });

  it('tells unresolved conflicts from ordinary changes', () => {
    expect(['UU', 'AA', 'DD', 'AU', 'UA', 'DU', 'UD'].every(isUnmerged)).toBe(true);
    expect([' M', 'M ', 'A ', 'D ', '??', 'R '].some(isUnmerged)).toBe(false);
  });

  it('finds the conflict markers git leaves in a file, but not a Markdown rule or quoted arrows', () => {
    expect(hasConflictMarkers('a\n<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> headspace/r1/main\n')).toBe(true);
    expect(hasConflictMarkers('Title\n=======\n\n> quoted >>>>>>>\n<<<<<<<<<< ten\n')).toBe(false);
  });
});

describe('git status branch header', () => {
  it.each([
    ['## headspace/r1/con', 'headspace/r1/con'],
    ['## main...origin/main [ahead 2, behind 1]', 'main'],
    ['## headspace/r1/main...origin/x', 'headspace/r1/main'],
    ['## No commits yet on main', 'main'],
    ['## HEAD (no branch)', undefined],
    ['?? not a header', undefined],
  ])('%s → %s', (header, branch) => {
    expect(branchOfHeader(header)).toBe(branch);
  });
});
