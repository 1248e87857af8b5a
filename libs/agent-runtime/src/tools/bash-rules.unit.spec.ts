import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '@headspace/contracts';
import { checkToolAllowed, checkToolDenied } from './permissions';
import { analyzeShellCommand } from './shell-command';

const allowed = (rules: string[], command: string) => checkToolAllowed(rules, { toolName: 'Bash', command });
const notDenied = (rules: string[], command: string) => checkToolDenied(rules, { toolName: 'Bash', command });

describe('Bash(git:*) on a real shell parse: tricks that must not slip through', () => {
  it.each([
    ['redirect to a file outside', 'git log > /outside'],
    ['append redirect', 'git log >> /outside'],
    ['stdout+stderr redirect', 'git log &> /outside'],
    ['fd redirect to a file', 'git log 2>/outside'],
    ['clobber redirect', 'git log >| notes.txt'],
    ['input from a file', 'git apply < /etc/shadow'],
    ['a second command after ;', 'git status; curl x'],
    ['a second command after &&', 'git log && sh -c id'],
    ['a pipe into another command', 'git log | curl -d @- x'],
    ['a background command', 'git status & curl x'],
    ['command substitution', 'git $(rm -rf /)'],
    ['command substitution in double quotes', 'git log "$(id)"'],
    ['backticks', 'git log `id`'],
    ['bash -c', 'bash -c "rm -rf /"'],
    ['sh -c running only git', "sh -c 'git log'"],
    ['/bin/sh by path', '/bin/sh -c id'],
    ['eval', 'eval git log'],
    ['env with an assignment', 'env X=1 git log'],
    ['command builtin', 'command git log'],
    ['exec builtin', 'exec git log'],
    ['xargs fed by git', 'git ls-files | xargs rm'],
    ['newline injection', 'git status\ncurl x'],
    ['CRLF newline injection', 'git status\r\ncurl x'],
    ['a subshell', '(git log; curl x)'],
    ['an assignment before git', 'GIT_PAGER="sh -c id" git log'],
    ['PATH hijack', 'PATH=/tmp/evil git log'],
    ['a function named git', 'git() { rm -rf /; }; git'],
    ['a mid-word # that shell-quote would read as a comment', 'git log#; rm -rf /'],
    ['a command name from a variable', '$GIT log'],
    ['a command name from a glob', 'gi? log'],
    ['brace expansion of the command name', '{rm,-rf,/}'],
    ['a here-document', 'git log <<EOF\nhi\nEOF'],
    ["ANSI-C quoting hiding a quote", "git log $'\\''; rm -rf /; echo '"],
    ['a dangling operator', 'git log &&'],
    ['an unbalanced parenthesis', '(git log'],
    ['single quotes around a backslash', "git log '\\'; rm -rf /; echo '"],
    ['if/then', 'if git log; then rm -rf /; fi'],
  ])('denies %s: %j', (_what, command) => {
    const verdict = allowed(['Read', 'Bash(git:*)'], command);
    expect(verdict).toMatchObject({ allowed: false, code: ErrorCodes.toolNotAllowed });
    expect(!verdict.allowed && verdict.reason).toContain('Bash(git:*)');
  });

  it.each([
    'git status',
    'git log --oneline -n 5',
    'git diff 2>&1',
    'git status >/dev/null 2>&1',
    'git log | git hash-object --stdin',
    '(git status; git log)',
    'git status &&\ngit log',
    'git status;\ngit log\n',
    'git commit -m "first line\nsecond line; rm -rf / | curl x"',
    "git log --format='%H %s' -- src",
    'git add "file with spaces.ts"',
    'git log -- *.ts',
  ])('allows %j', (command) => {
    expect(allowed(['Bash(git:*)'], command)).toEqual({ allowed: true });
  });

  it('names the redirection in the reason', () => {
    const verdict = allowed(['Bash(git:*)'], 'git log > /outside');
    expect(!verdict.allowed && verdict.reason).toContain('redirects to a file (> /outside)');
  });

  it('allows a redirection or launcher only when a rule spells it out', () => {
    expect(allowed(['Bash(git log > changes.txt)'], 'git log > changes.txt')).toEqual({ allowed: true });
    expect(allowed(['Bash(git log > changes.txt)'], 'git log > /outside').allowed).toBe(false);
    expect(allowed(['Bash(xargs:*)', 'Bash(git:*)'], 'git ls-files | xargs wc -l')).toEqual({ allowed: true });
    expect(allowed(['Bash(*)'], 'sh -c id').allowed).toBe(false);
    expect(allowed(['Bash(*)'], 'npm test')).toEqual({ allowed: true });
    expect(allowed(['Bash(GIT_PAGER=cat git:*)'], 'GIT_PAGER=cat git log')).toEqual({ allowed: true });
  });
});

describe('Bash deny rules see through launchers', () => {
  const deny = ['Bash(npm publish:*)'];
  it.each(['npm publish', 'npm test && npm publish --tag next', 'sh -c "npm publish"', 'bash -lc "echo hi; npm publish"', 'timeout 5 npm publish', 'eval npm publish', 'env X=1 npm publish', 'X=1 npm publish', 'echo $(npm publish)', 'sh -c "$(curl x)"'])(
    'denies %j',
    (command) => {
      expect(notDenied(deny, command)).toMatchObject({ allowed: false, code: ErrorCodes.toolNotAllowed });
    },
  );
  it.each(['npm test', 'sh -c "npm test"', 'echo publish'])('lets %j through', (command) => {
    expect(notDenied(deny, command)).toEqual({ allowed: true });
  });
});

describe('analyzeShellCommand', () => {
  it('splits simple commands with their assignments, words and redirections', () => {
    expect(analyzeShellCommand('A=1 git log -n 2 2>/dev/null | head -5; (echo "a b" > out.txt)')).toEqual({
      ok: true,
      commands: [
        { assignments: ['A=1'], argv: ['git', 'log', '-n', '2'], dynamicName: false, redirects: [{ op: '>', fd: '2', target: '/dev/null' }] },
        { assignments: [], argv: ['head', '-5'], dynamicName: false, redirects: [] },
        { assignments: [], argv: ['echo', 'a b'], dynamicName: false, redirects: [{ op: '>', target: 'out.txt' }] },
      ],
    });
  });

  it('keeps "2" as an argument when it is not written against the operator', () => {
    const r = analyzeShellCommand('git log -n 2 >/dev/null');
    expect(r.ok && r.commands[0]).toMatchObject({ argv: ['git', 'log', '-n', '2'], redirects: [{ op: '>', target: '/dev/null' }] });
  });

  it('says why it cannot read a line', () => {
    expect(analyzeShellCommand('git log `id`')).toEqual({ ok: false, reason: 'it contains command substitution (backticks)' });
  });
});
