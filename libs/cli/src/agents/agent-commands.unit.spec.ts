import { describe, expect, it } from 'vitest';
import { printIssues, sourceArgument } from './agent-commands';

describe('headspace agents', () => {
  it('sends a relative --source directory absolute and URLs as written', () => {
    expect(sourceArgument('repo', '/home/me/src')).toBe('/home/me/src/repo');
    expect(sourceArgument('../other', '/home/me/src')).toBe('/home/me/other');
    expect(sourceArgument('/abs/repo', '/home/me')).toBe('/abs/repo');
    expect(sourceArgument('https://github.com/acme/app.git')).toBe('https://github.com/acme/app.git');
    expect(sourceArgument('file:///srv/app')).toBe('file:///srv/app');
    expect(sourceArgument('git@github.com:acme/app.git')).toBe('git@github.com:acme/app.git');
  });

  it('prints each invalid file as `file: field: message` and each warning with its code, on stderr', () => {
    const err: string[] = [];
    const io = { out: { write: () => true }, err: { write: (s: string) => err.push(s) } } as never;
    printIssues(io, [{ file: 'broken.md', field: 'model', message: 'Invalid option' }], [{ code: 'AGENT_ANTI_PATTERN.MISSING_MAX_TURNS', message: 'reviewer: maxTurns is not set' }]);
    // eslint-disable-next-line no-control-regex -- colour codes out, whatever the terminal
    const text = err.join('').replace(/\u001b\[[0-9;]*m/g, '');
    expect(text).toContain('broken.md: model: Invalid option');
    expect(text).toContain('reviewer: maxTurns is not set (AGENT_ANTI_PATTERN.MISSING_MAX_TURNS)');
  });
});
